"""The schema applies twice, its constraints hold, a wrong vector dimension is reported, and rebuilt full-text
indexes forget deleted nodes."""

from __future__ import annotations

import pytest
from neo4j.exceptions import ConstraintError

from bookrag_neo4j.db.client import Neo4jClient
from bookrag_neo4j.db.schema import VECTOR_INDEXES, apply_schema, fulltext_statements, rebuild_fulltext
from bookrag_neo4j.errors import SchemaError


async def test_schema_applies_twice(db: Neo4jClient, dimensions, schema) -> None:
    once = await apply_schema(db, dimensions=dimensions)
    again = await apply_schema(db, dimensions=dimensions)
    by_name = {i.name: i for i in again}
    # other tests may have added a layer's indexes since the session's first apply: compare like with like
    assert [i.name for i in again] == [i.name for i in once]
    assert {i.name for i in schema} <= set(by_name)
    assert all(i.state == "ONLINE" for i in again)
    for name in VECTOR_INDEXES:
        assert by_name[name].type == "VECTOR"
        assert by_name[name].dimensions == dimensions
    assert by_name["tree_node_text"].type == "FULLTEXT"
    assert by_name["entity_name"].type == "FULLTEXT"


async def test_content_hash_keys_are_unique(db: Neo4jClient, schema) -> None:
    await db.run("CREATE (:Document {key: 'k1', doc_key: 'test-doc'})")
    with pytest.raises(ConstraintError):
        await db.run("CREATE (:Document {key: 'k1', doc_key: 'test-doc'})")
    await db.run("CREATE (:Text:TreeNode {key: 't1', doc_key: 'test-doc'})")
    with pytest.raises(ConstraintError):
        await db.run("CREATE (:Section:TreeNode {key: 't1', doc_key: 'test-doc'})")


async def test_dimension_mismatch_is_reported(db: Neo4jClient, dimensions, schema) -> None:
    with pytest.raises(SchemaError, match="dimensions"):
        await apply_schema(db, dimensions=dimensions + 1)


async def _score(db: Neo4jClient) -> float:
    rows = await db.run("CALL db.index.fulltext.queryNodes('tree_node_text', 'zephyrine') YIELD node, score "
                           "WHERE node.doc_key = 'test-fts-kept' RETURN max(score) AS score")
    return rows[0]["score"]


async def test_rebuilt_fulltext_indexes_forget_deleted_nodes(db: Neo4jClient, schema) -> None:
    """Nodes deleted by a re-index may stay in Lucene's BM25 statistics until it merges them away (whether they
    do depends on its merges); rebuilt indexes score a kept node from the nodes there now, whatever was deleted."""
    await db.run("UNWIND range(1, 20) AS i CREATE (:Text:TreeNode {key: 'test-fts-k' + i, doc_key: 'test-fts-kept', "
                    "text: CASE WHEN i < 3 THEN 'the zephyrine valve' ELSE 'the brass valve' END})")
    await rebuild_fulltext(db)  # earlier tests deleted nodes too: start from statistics without them
    before = await _score(db)
    ids = {row["name"]: row["id"] for row in await db.run("SHOW INDEXES YIELD id, name RETURN id, name")}
    await db.run("UNWIND range(1, 300) AS i CREATE (:Text:TreeNode {key: 'test-fts-g' + i, doc_key: 'test-fts-gone', "
                    "text: 'zephyrine wind'})")
    await db.run("MATCH (n:TreeNode {doc_key: 'test-fts-gone'}) DETACH DELETE n")
    names = await rebuild_fulltext(db)
    assert "tree_node_text" in names and set(names) <= set(fulltext_statements())
    rebuilt = {row["name"]: row["id"] for row in await db.run("SHOW INDEXES YIELD id, name RETURN id, name")}
    assert all(rebuilt[name] != ids[name] for name in names)  # each built anew
    assert await _score(db) == pytest.approx(before)
