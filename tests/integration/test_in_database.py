"""A question's similarities and entity links are computed in Neo4j, over a document's own nodes: the same values
as the exact computation over the stored (float32) embeddings, whatever else the library holds."""

from __future__ import annotations

import numpy as np

from bookrag_neo4j.db.client import Neo4jClient
from bookrag_neo4j.db.vectors import use_plugin
from bookrag_neo4j.library.documents import Document
from bookrag_neo4j.retrieval.document_blocks import BlockRow, block_similarities, read_blocks
from bookrag_neo4j.retrieval.linking import link_entities

DOC, OTHER = "test-indb", "test-indb-other"


async def write_blocks(db: Neo4jClient, doc: str, vectors: list[list[float] | None]) -> None:
    await db.run(
        "UNWIND range(0, size($vectors) - 1) AS i "
        "CREATE (n:TreeNode:Text {key: $doc + '-b' + i, doc_key: $doc, kind: 'text', order: i, text: 'block ' + i, "
        "page_start: 1, page_end: 1}) "
        "WITH n, $vectors[i] AS v WHERE v IS NOT NULL CALL db.create.setNodeVectorProperty(n, 'embedding', v)",
        {"doc": doc, "vectors": vectors})


async def test_block_similarities_are_the_exact_cosine_over_the_document(db: Neo4jClient, dimensions) -> None:
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((40, dimensions)).astype(np.float32)
    await write_blocks(db, DOC, [v.tolist() for v in vectors[:39]] + [None])  # the last block has none
    await write_blocks(db, OTHER, [vectors[0].tolist()] * 5)  # another document's blocks are not read
    rows = await db.run("MATCH (n:TreeNode {doc_key: $d}) RETURN n.key AS key, n.doc_key AS doc_key, "
                           "n.order AS order, n.kind AS kind, '' AS section_path, '' AS title, n.page_start AS "
                           "page_start, n.page_end AS page_end, n.text AS text", {"d": DOC})
    blocks = read_blocks([BlockRow(**row) for row in rows])
    question = rng.standard_normal(dimensions).astype(np.float32)
    found = await block_similarities(db, Document(key=DOC), blocks, question.tolist())
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    expected = (1.0 + (unit @ (question / np.linalg.norm(question))).astype(np.float64)) / 2.0
    order = [int(k.rsplit("-b", 1)[1]) for k in blocks.keys]
    assert len(found) == 40 and np.isnan(found[blocks.rows[f"{DOC}-b39"]])
    assert np.allclose(found[[blocks.rows[f"{DOC}-b{i}"] for i in range(39)]], expected[:39], atol=1e-6)
    assert sorted(order) == list(range(40))
    # the nearest blocks are the exact top, and a candidate without an embedding has no similarity
    best = np.argsort(-expected[:39])[:3]
    assert [k for k, _ in blocks.nearest(found, 3)] == [f"{DOC}-b{i}" for i in best]
    assert blocks.candidates([f"{DOC}-b39"], found)[0].similarity is None
    # a question of another dimension (an index made with another embedder) has no similarities
    assert len(await block_similarities(db, Document(key=DOC), blocks, [1.0, 0.0])) == 0


async def test_entities_link_by_name_or_embedding_within_the_document(db: Neo4jClient, dimensions) -> None:
    axis = [[1.0 if i == j else 0.0 for i in range(dimensions)] for j in range(3)]
    near = [0.6, 0.8] + [0.0] * (dimensions - 2)  # cosine 0.8 with the second axis: (1 + 0.8) / 2 = 0.9
    entities = [("k0", "vega|person", axis[0]), ("k1", "lyra|person", near), ("k2", "vega|place", None),
                ("k3", "orion|person", axis[2])]
    await db.run(
        "UNWIND $rows AS row CREATE (e:Entity {key: $doc + '-' + row.key, doc_key: $doc, name_key: row.name}) "
        "WITH e, row WHERE row.vector IS NOT NULL CALL db.create.setNodeVectorProperty(e, 'embedding', row.vector)",
        {"doc": DOC, "rows": [{"key": k, "name": n, "vector": v} for k, n, v in entities]})
    await db.run("CREATE (e:Entity {key: $doc + '-k0', doc_key: $doc, name_key: 'vega|person'}) "
                    "WITH e CALL db.create.setNodeVectorProperty(e, 'embedding', $v)", {"doc": OTHER, "v": axis[1]})
    doc = Document(key=DOC)
    # the name links both "vega" entities (1.0, the one without an embedding too), ties by key; the embedding
    # links lyra; the other document's entity (the question's own vector) is not among them
    links = await link_entities(db, doc, ["vega", "orion", "vega"], [axis[1], axis[1], axis[1]],
                                threshold=0.85, top=5)
    assert links[0] == [(f"{DOC}-k0", 1.0), (f"{DOC}-k2", 1.0), (f"{DOC}-k1", 0.9)]
    assert links[1] == [(f"{DOC}-k3", 1.0), (f"{DOC}-k1", 0.9)]
    assert (await link_entities(db, doc, ["vega"], [axis[1]], threshold=0.85, top=1)) == [[(f"{DOC}-k0", 1.0)]]
    assert (await link_entities(db, doc, ["nobody"], [axis[0]], threshold=0.95, top=3)) == [[(f"{DOC}-k0", 1.0)]]
    assert (await link_entities(db, doc, ["nobody"], [[1.0, 0.0]], threshold=0.5, top=3)) == [[]]  # dimension
    assert (await link_entities(db, doc, [], [], threshold=0.5, top=3)) == []


async def test_thousands_of_entities_link_as_the_cypher_path_links_them(db: Neo4jClient, dimensions) -> None:
    """Past 2,048 entities the plugin scores them in slices, one a core: the same links, scores and ties (by key) as
    the Cypher path's, whatever slice an entity fell in."""
    rng = np.random.default_rng(5)
    vectors = rng.standard_normal((3000, dimensions)).astype(np.float32)
    vectors[2500:2600] = vectors[10]  # ties with an entity of the first slice
    await db.run(
        "UNWIND range(0, size($vectors) - 1) AS i "
        "CREATE (e:Entity {key: $doc + '-e' + i, doc_key: $doc, name_key: 'entity ' + (i % 1000) + '|concept'}) "
        "WITH e, $vectors[i] AS v CALL db.create.setNodeVectorProperty(e, 'embedding', v)",
        {"doc": DOC, "vectors": vectors.tolist()})
    names = ["entity 3", "nobody", "someone"]
    asked = [vectors[10].tolist(), (vectors[2999] + 0.1 * vectors[5]).tolist(), rng.standard_normal(dimensions).tolist()]
    links = {engine: await link_entities(db, Document(key=DOC), names, asked, threshold=0.55, top=150, engine=engine)
             for engine in ("auto", "cypher")}
    assert await use_plugin(db, engine="auto") and links["auto"] == links["cypher"]  # the plugin's, and the Cypher path's
    best = [key for key, score in links["auto"][0] if score == 1.0]  # by name (entity 3, in each slice) or vector
    assert {f"{DOC}-e{i}" for i in (3, 1003, 2003, 10, 2500, 2599)} <= set(best) and best == sorted(best)
    assert links["auto"][1][0][0] == f"{DOC}-e2999"
