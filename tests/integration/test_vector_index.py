"""The entity vector index answers db.index.vector.queryNodes with the nearest embeddings."""

from __future__ import annotations

import math
import random

from bookrag_neo4j.db.client import Neo4jClient


def unit(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector]


async def test_vector_index_returns_nearest(db: Neo4jClient, dimensions, schema) -> None:
    rng = random.Random(7)
    dims = dimensions
    vectors = {f"e{i}": unit([rng.gauss(0, 1) for _ in range(dims)]) for i in range(50)}
    await db.run(
        "UNWIND $rows AS row CREATE (:Entity {key: row.key, doc_key: 'test-vec', embedding: row.embedding})",
        {"rows": [{"key": f"test-vec-{k}", "embedding": v} for k, v in vectors.items()]},
    )
    target = vectors["e17"]
    query = unit([x + rng.gauss(0, 0.01) for x in target])  # a noisy copy of e17
    rows = await db.run(  # k = 50 then filtered, as the product does: HNSW search is approximate, and
        # the index may hold many other entities (this server keeps the documents indexed on it)
        "CALL db.index.vector.queryNodes('entity_embedding', 50, $q) YIELD node, score "
        "WHERE node.doc_key = 'test-vec' RETURN node.key AS key, score ORDER BY score DESC LIMIT 5",
        {"q": query},
        read=True,
    )
    assert rows[0]["key"] == "test-vec-e17"
    # Neo4j reports cosine similarity as (1 + cos) / 2: unrelated random vectors score about 0.5
    assert rows[0]["score"] > 0.95
    assert all(row["score"] < 0.6 for row in rows[1:])
