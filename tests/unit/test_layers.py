"""The one writer of a layer's build state refuses a property that is not its layer's, before it writes."""

import pytest

from bookrag_neo4j.library.layers import clear_state, mark_complete


async def test_a_layer_writes_only_its_own_properties() -> None:
    with pytest.raises(ValueError, match="must start with layout_"):
        await mark_complete(None, "k", "layout", "cfg", seconds=1.0, figures={"graph_entities": 3})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no layer"):
        await clear_state(None, "k", "tree")  # type: ignore[arg-type]
