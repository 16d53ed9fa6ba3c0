"""The schema applies twice, its constraints hold, and a wrong vector dimension is reported."""

from __future__ import annotations

import pytest
from neo4j.exceptions import ConstraintError

from bookrag_neo4j.db.client import GraphClient
from bookrag_neo4j.db.schema import VECTOR_INDEXES, apply_schema
from bookrag_neo4j.errors import SchemaError


async def test_schema_applies_twice(graph: GraphClient, dimensions, schema) -> None:
    once = await apply_schema(graph, dimensions=dimensions)
    again = await apply_schema(graph, dimensions=dimensions)
    by_name = {i["name"]: i for i in again}
    # other tests may have added a layer's indexes since the session's first apply: compare like with like
    assert [i["name"] for i in again] == [i["name"] for i in once]
    assert {i["name"] for i in schema} <= set(by_name)
    assert all(i["state"] == "ONLINE" for i in again)
    for name in VECTOR_INDEXES:
        assert by_name[name]["type"] == "VECTOR"
        assert by_name[name]["dimensions"] == dimensions
    assert by_name["tree_node_text"]["type"] == "FULLTEXT"
    assert by_name["entity_name"]["type"] == "FULLTEXT"


async def test_content_hash_keys_are_unique(graph: GraphClient, schema) -> None:
    await graph.run("CREATE (:Document {key: 'k1', doc_key: 'test-doc'})")
    with pytest.raises(ConstraintError):
        await graph.run("CREATE (:Document {key: 'k1', doc_key: 'test-doc'})")
    await graph.run("CREATE (:Text:TreeNode {key: 't1', doc_key: 'test-doc'})")
    with pytest.raises(ConstraintError):
        await graph.run("CREATE (:Section:TreeNode {key: 't1', doc_key: 'test-doc'})")


async def test_dimension_mismatch_is_reported(graph: GraphClient, dimensions, schema) -> None:
    with pytest.raises(SchemaError, match="dimensions"):
        await apply_schema(graph, dimensions=dimensions + 1)
