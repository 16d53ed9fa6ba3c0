"""The one writer of a layer's build state on its ``(:Document)``: ``<layer>_status`` is 'building' while the layer
is made and 'complete' after, with its config, seconds, build time and figures; cleared when the layer is deleted.
The knowledge graph (``graph_``), the layout layer (``layout_``) and the content graph (``g2_``) share it, so a
reader (:class:`~bookrag_neo4j.library.documents.Document`) finds every layer's state under the same names.

    await mark_building(db, doc_key, "layout", config)
    await mark_complete(db, doc_key, "layout", config, seconds=12.3, figures=counts.properties())
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Literal

from ..db.client import Neo4jClient

Layer = Literal["graph", "layout", "g2"]
LAYERS: tuple[Layer, ...] = ("graph", "layout", "g2")


async def _set(db: Neo4jClient, doc_key: str, layer: Layer, props: Mapping[str, Any]) -> None:
    if layer not in LAYERS:
        raise ValueError(f"no layer {layer!r}")
    foreign = [name for name in props if not name.startswith(f"{layer}_")]
    if foreign:
        raise ValueError(f"{layer} layer properties must start with {layer}_: {foreign}")
    await db.write("library/set_layer_state", doc_key=doc_key, props=dict(props))


async def mark_building(db: Neo4jClient, doc_key: str, layer: Layer, config: str) -> None:
    """The layer is being (re)built with ``config``: readers treat it as missing until it is complete."""
    await _set(db, doc_key, layer, {f"{layer}_status": "building", f"{layer}_config": config})


async def mark_complete(db: Neo4jClient, doc_key: str, layer: Layer, config: str, *, seconds: float,
                        figures: Mapping[str, Any] = {}) -> None:
    """The layer is complete: its config, build seconds, build time (to the microsecond: a cache keyed by it never
    mistakes a rebuild in the same second for the old layer) and ``figures`` (properties named ``<layer>_...``)."""
    await _set(db, doc_key, layer, {
        f"{layer}_status": "complete", f"{layer}_config": config, f"{layer}_seconds": seconds,
        f"{layer}_built_at": datetime.now(UTC).isoformat(), **figures})


async def clear_state(db: Neo4jClient, doc_key: str, layer: Layer) -> None:
    """The layer was deleted: no status, no config."""
    await _set(db, doc_key, layer, {f"{layer}_status": None, f"{layer}_config": None})
