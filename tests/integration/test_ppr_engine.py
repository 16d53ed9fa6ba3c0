"""The per-question path in Neo4j, on a real indexed document. Graph_Reasoning's engine: bookrag-neo4j's plugin by
default where the server has it, else GDS, and the trace says so; their scores (one call on the stored graph; one
read query on the document's catalog projection) equal the in-process engine's; on GDS, a question after the
catalog lost its projection (as a server restart empties it) works, and the question's path writes nothing once
the projection exists. Vector scoring: bookrag-neo4j's plugin (loaded into the managed server) gives Cypher's
scores to the bit, its ranks and tie order, never from a cached vector a later write made stale, and a question
gives the same evidence with it and without it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import numpy as np
import pytest

from bookrag_neo4j.config import Settings
from bookrag_neo4j.db.client import ConnectionInfo, Neo4jClient
from bookrag_neo4j.db.projections import (
    DocumentProjections,
    drop_document_projections,
    held_projections,
    projection_name,
)
from bookrag_neo4j.db.vectors import PLUGIN_VERSION, plugin_version
from bookrag_neo4j.doctor import _graph_checks
from bookrag_neo4j.index.pipeline import Indexer
from bookrag_neo4j.library.catalogue import delete_document
from bookrag_neo4j.llm import Models
from bookrag_neo4j.methods import Retriever
from bookrag_neo4j.retrieval import reasoners, subtrees
from bookrag_neo4j.retrieval.document_blocks import block_similarities, document_blocks
from bookrag_neo4j.retrieval.entity_graph import EntityGraph, EntityGraphCache, EntityRow
from bookrag_neo4j.retrieval.linking import link_entities

from ..helpers.pdfs import FOOTLOCKER, need
from ..helpers.server import external

QUESTION = "What did Foot Locker's shareholders vote on at the annual meeting?"
BUDGET = 512 * 2**20

# The seeds: the document's most mentioned entities, and one of its least (a walk from the graph's edge).
SEEDS = """
MATCH (e:Entity {doc_key: $doc_key})
WITH e, COUNT { (e)-[:MENTIONED_IN]->() } AS mentions, COUNT { (e)-[:RELATED|CONTAINED_IN]-() } AS degree
WHERE degree > 0
RETURN e.key AS key ORDER BY mentions DESC, e.key LIMIT $top
"""


@pytest.fixture(scope="module")
async def footlocker(conn: ConnectionInfo, settings: Settings, offline_models: Models, schema) -> AsyncIterator[str]:
    """A real 8-K indexed LLM-free with its knowledge graph (its key), deleted after the module."""
    async with Neo4jClient(conn) as client:
        report = await Indexer(client, settings, offline_models, use_llm=False).index(need(FOOTLOCKER), layout=False)
        yield report.doc_key
        await delete_document(client, report.doc_key)


async def tree_nodes(db: Neo4jClient, doc_key: str) -> list[str]:
    rows = await db.run("MATCH (n:TreeNode {doc_key: $doc_key}) RETURN n.key AS key ORDER BY n.key",
                           {"doc_key": doc_key})
    return [r["key"] for r in rows]


async def seeds(db: Neo4jClient, doc_key: str, top: int) -> list[str]:
    return [r["key"] for r in await db.run(SEEDS, {"doc_key": doc_key, "top": top})]


# A small weighted entity graph (two communities and a bridge, an isolated entity) GT-Linked to five tree nodes.
DOC, OTHER = "test-ppr-nodes", "test-ppr-nodes-other"
EDGES = [("a", "b", 3.0), ("a", "c", 1.0), ("b", "c", 2.0), ("c", "d", 1.0), ("d", "e", 0.5), ("e", "f", 2.0),
         ("f", "g", 1.0), ("e", "g", 4.0), ("g", "h", 1.0)]
LINKS = {f"{DOC}-{n}": entities for n, entities in {"t1": "ab", "t2": "c", "t3": "efg", "t4": "z", "t5": ""}.items()}


async def small_graph(db: Neo4jClient) -> None:
    await db.run("UNWIND $keys AS k CREATE (:Entity {key: k, doc_key: $doc})",
                    {"keys": [f"{DOC}-{n}" for n in "abcdefghz"], "doc": DOC})
    await db.run("UNWIND $edges AS e MATCH (s:Entity {key: e.s}), (t:Entity {key: e.t}) "
                    "CREATE (s)-[:RELATED {weight: e.w}]->(t)",
                    {"edges": [{"s": f"{DOC}-{a}", "t": f"{DOC}-{b}", "w": w} for a, b, w in EDGES]})
    await db.run("UNWIND $nodes AS n CREATE (:TreeNode {key: n, doc_key: $doc})", {"nodes": list(LINKS), "doc": DOC})
    await db.run("UNWIND $links AS l MATCH (e:Entity {key: l.e}), (n:TreeNode {key: l.n}) "
                    "CREATE (e)-[:MENTIONED_IN]->(n)",
                    {"links": [{"e": f"{DOC}-{e}", "n": n} for n, es in LINKS.items() for e in es]})


def ranking(scores: dict[str, float]) -> list[str]:
    return sorted(scores, key=lambda k: (-scores[k], k))


@pytest.mark.parametrize("node_score", ["sum", "mean", "max"])
async def test_gds_and_plugin_scores_equal_the_in_process_engine_on_a_real_document(db: Neo4jClient, footlocker: str,
                                                                         node_score: str) -> None:
    (doc,) = await subtrees.scope_documents(db, [footlocker])
    nodes = await tree_nodes(db, footlocker)
    for top in (1, 3):
        sources = await seeds(db, footlocker, top)
        assert len(sources) == top
        local = await reasoners.graph_reasoning(db, nodes, sources, documents=[doc], engine="local",
                                                node_score=node_score, damping=0.5, graphs=EntityGraphCache())
        gds = await reasoners.graph_reasoning(db, nodes, sources, documents=[doc], engine="gds",
                                              node_score=node_score, damping=0.5, projections=DocumentProjections())
        plugin = await reasoners.graph_reasoning(db, nodes, sources, documents=[doc], engine="plugin",
                                               node_score=node_score, damping=0.5)
        assert len(local) > 10 and set(gds) == set(local) == set(plugin)  # every node with a GT-Link, scored by all
        assert plugin == local  # the same loop: equal to the last digit kept
        assert any(v > 0 for v in local.values())
        for key, value in local.items():  # the same computation: equal to the last digits kept (9)
            assert gds[key] == pytest.approx(value, abs=2e-9), key
        total_local, total_gds = sum(local.values()), sum(gds.values())
        for key, value in local.items():
            assert gds[key] / total_gds == pytest.approx(value / total_local, abs=1e-9), key
        assert ranking(gds) == ranking(local)


@pytest.mark.parametrize("node_score", ["sum", "mean", "max"])
async def test_node_scores_equal_the_in_process_computation(db: Neo4jClient, schema, node_score: str) -> None:
    await small_graph(db)
    whole = EntityGraph.from_rows(await db.read_rows_as(EntityRow, "retrieval/entity_graph", doc_key=DOC))
    combine = reasoners.NODE_SCORES[node_score]
    projections = DocumentProjections()

    def expected(seeds: str) -> dict[str, float]:
        scores = reasoners.pagerank_on(whole.transition, [whole.position[f"{DOC}-{s}"] for s in seeds], damping=0.5)
        return {n: float(combine(scores[e])) for n, e in whole.node_entities.items()}

    async def on_gds(seeds: str, nodes: list[str]) -> dict[str, float]:
        found = await projections.node_scores(db, [(DOC, "v1")], [f"{DOC}-{s}" for s in seeds], nodes,
                                              budget_bytes=BUDGET, node_score=node_score, damping=0.5)
        in_plugin = await reasoners.plugin_node_scores(db, [DOC], [f"{DOC}-{s}" for s in seeds], nodes,
                                                     node_score=node_score, damping=0.5)
        assert in_plugin == pytest.approx(found, abs=1e-12)
        return found

    t1, t3, t5 = f"{DOC}-t1", f"{DOC}-t3", f"{DOC}-t5"
    try:
        for seeds in ("a", "ag", "z"):
            assert set(expected(seeds)) == set(LINKS) - {t5}
            assert await on_gds(seeds, list(LINKS)) == pytest.approx(expected(seeds), abs=1e-12)
        assert expected("a")[t1] > expected("a")[t3] > 0  # the walk crosses the bridge
        # another document's entity GT-Linked to t1 (not in this projection): joined through the GT-Links instead
        await db.run("CREATE (:Entity {key: $k, doc_key: $doc})-[:MENTIONED_IN]->(:TreeNode {key: $k, doc_key: $doc})",
                        {"k": f"{OTHER}-x", "doc": OTHER})
        await db.run("MATCH (x:Entity {key: $k}), (n:TreeNode {key: $t1}) CREATE (x)-[:MENTIONED_IN]->(n)",
                        {"k": f"{OTHER}-x", "t1": t1})
        assert await on_gds("ag", list(LINKS)) == pytest.approx(expected("ag"), abs=1e-12)
        # no seed in the document, or no candidate GT-Linked: no walk, no scores
        assert await projections.node_scores(db, [(DOC, "v1")], [f"{OTHER}-x"], list(LINKS),
                                             budget_bytes=BUDGET) == {}
        assert await reasoners.plugin_node_scores(db, [DOC], [f"{OTHER}-x"], list(LINKS)) == {}
        assert await on_gds("a", [t5]) == {}
        # a later write to the graph: the plugin's graph, cached since its first call, is never served stale
        await db.run("MATCH (h:Entity {key: $h}), (z:Entity {key: $z}) CREATE (h)-[:RELATED {weight: 2.0}]->(z)",
                        {"h": f"{DOC}-h", "z": f"{DOC}-z"})
        whole = EntityGraph.from_rows(await db.read_rows_as(EntityRow, "retrieval/entity_graph", doc_key=DOC))
        assert expected("z")[t3] > 0  # z reaches the rest now
        assert await reasoners.plugin_node_scores(db, [DOC], [f"{DOC}-z"], list(LINKS), node_score=node_score,
                                                damping=0.5) == pytest.approx(expected("z"), abs=1e-12)
    finally:
        await drop_document_projections(db, DOC)


@pytest.mark.skipif(external(), reason="the plugin is loaded into the managed server only")
async def test_default_engine_is_the_plugin_and_the_trace_records_it(db: Neo4jClient, footlocker: str,
                                                                     settings: Settings, offline_models: Models) -> None:
    assert type(Settings().bookrag).model_fields["ppr_engine"].default == "auto"
    runs = {}
    for configured in ("auto", "gds", "local"):
        chosen = settings.replace(ppr_engine=configured, skyline_min=3)
        runs[configured] = await Retriever(db, chosen, offline_models, use_llm=False).retrieve(QUESTION, [footlocker])
    assert {c: [t.engine for t in e.trace if t.operator == "Graph_Reasoning"] for c, e in runs.items()} == {
        "auto": ["plugin"], "gds": ["gds"], "local": ["local"]}  # the test server has the plugin and GDS
    assert "(plugin)" in next(t.output for t in runs["auto"].trace if t.operator == "Graph_Reasoning")
    on_plugin, on_gds, in_process = runs.values()
    assert on_plugin.seeds and on_plugin.seeds == on_gds.seeds == in_process.seeds
    assert any(n.graph_score > 0 for n in on_plugin.nodes)
    assert [n.key for n in on_plugin.nodes] == [n.key for n in on_gds.nodes] == [n.key for n in in_process.nodes]
    for ours, gds, theirs in zip(on_plugin.nodes, on_gds.nodes, in_process.nodes, strict=True):
        assert ours.graph_score == theirs.graph_score == pytest.approx(gds.graph_score, abs=2e-9)

    # why, as `bookrag doctor` says it
    doctor = await _graph_checks(settings)
    assert doctor["graph_reasoning"].ok
    assert doctor["graph_reasoning"].detail.startswith("PageRank on plugin: the server has bookrag-neo4j's plugin")
    engine, why = await reasoners.choose_engine(db, "auto")
    assert engine == "plugin" and why in doctor["graph_reasoning"].detail
    assert (await reasoners.choose_engine(db, "auto", plugin=False))[0] == "gds"  # every entity's score: GDS
    assert (await reasoners.choose_engine(db, "plugin", plugin=False))[0] == "gds"  # Graph_Rank, plugin configured
    assert reasoners.ppr_engine("auto", True, False)[0] == "gds"  # a server without the plugin
    assert reasoners.ppr_engine("auto", False)[0] == "local"  # a server without either
    assert reasoners.ppr_engine("local", True, True)[0] == "local" and reasoners.ppr_engine("gds", False)[0] == "gds"


async def test_the_questions_path_is_one_read(db: Neo4jClient, footlocker: str) -> None:
    (doc,) = await subtrees.scope_documents(db, [footlocker])
    nodes, sources = await tree_nodes(db, footlocker), await seeds(db, footlocker, 2)
    projections = DocumentProjections()
    first = await reasoners.graph_reasoning(db, nodes, sources, documents=[doc], engine="gds", projections=projections)
    assert projection_name(footlocker, doc.graph_version or "") in await held_projections(db)
    calls: list[tuple[str, str]] = []
    for method in ("read", "read_rows", "write", "write_rows", "run"):
        real = getattr(db, method)

        def counting(name: str, *args, _method: str = method, _real=real, **params):
            calls.append((_method, name))
            return _real(name, *args, **params)

        setattr(db, method, counting)
    again = await reasoners.graph_reasoning(db, nodes, sources, documents=[doc], engine="gds",
                                            projections=DocumentProjections())  # a fresh process: no catalog check
    assert again == first
    assert calls == [("read_rows", "gds/node_pagerank")]
    calls.clear()
    assert await reasoners.graph_reasoning(db, nodes, sources, documents=[doc], engine="plugin") == first
    assert calls == [("read_rows", "plugin/node_pagerank")]


async def test_a_question_after_the_catalog_lost_its_projection(db: Neo4jClient, footlocker: str,
                                                               settings: Settings, offline_models: Models) -> None:
    """A restarted server's catalog is empty while this process still holds the projection's name: the projection
    is dropped behind the client's back here, as a restart would (a restart itself, with the driver's reconnect:
    ``test_crashes.py`` and ``test_server.py``)."""
    on_gds = settings.replace(ppr_engine="gds", skyline_min=3)
    agent = Retriever(db, on_gds, offline_models, use_llm=False)
    before = await agent.retrieve(QUESTION, [footlocker])
    (doc,) = await subtrees.scope_documents(db, [footlocker])
    name = projection_name(footlocker, doc.graph_version or "")
    assert name in await held_projections(db)
    await db.run("CALL gds.graph.drop($name, false) YIELD graphName RETURN graphName", {"name": name})
    assert name not in await held_projections(db)
    after = await agent.retrieve(QUESTION, [footlocker])
    assert [t.engine for t in after.trace if t.operator == "Graph_Reasoning"] == ["gds"]
    assert [(n.key, round(n.graph_score, 6)) for n in after.nodes] == [
        (n.key, round(n.graph_score, 6)) for n in before.nodes]
    assert any(n.graph_score > 0 for n in after.nodes)
    assert name in await held_projections(db)  # made again by the question
    values, engine = await reasoners.reason_on_graph(db, [n.key for n in after.nodes], after.seeds, documents=[doc],
                                                   configured="gds")
    assert engine == "gds" and any(v > 0 for v in values.values())


@pytest.mark.skipif(external(), reason="the plugin is loaded into the managed server only")
async def test_the_plugin_scores_as_cypher_does_and_never_from_stale_vectors(db: Neo4jClient, footlocker: str,
                                                                             offline_models: Models) -> None:
    assert await plugin_version(db, fresh=True) == PLUGIN_VERSION
    (doc,) = await subtrees.scope_documents(db, [footlocker])
    blocks = await document_blocks(db, doc, max_chars=4000)
    vectors = await offline_models.embedder.embed([QUESTION, "board of directors election", "net sales"])

    async def both(query: str, **params) -> list:
        found = [await db.read(f"{where}/{query}", **params) for where in ("retrieval", "plugin")]
        assert found[0] == found[1], query  # the same rows, in the same order
        return found[0]

    for vector in map(lambda v: list(map(float, v)), vectors):
        cypher = await block_similarities(db, doc, blocks, vector, engine="cypher")
        for _ in range(2):  # the plugin's keys come once; then its scores alone, in the order they came in
            assert np.array_equal(cypher, await block_similarities(db, doc, blocks, vector, engine="plugin"),
                                  equal_nan=True)
        for top in (1, 10, 10_000):
            await both("nearest_nodes", doc_keys=[footlocker], embedding=vector, top=top)
    assert len(blocks.plugin_rows) == 1
    names = ["foot locker", "board", "shareholders", "nothing of the kind"]
    entities = [{"name": n, "vector": list(map(float, v))} for n, v in
                zip(names, await offline_models.embedder.embed(names), strict=True)]
    for threshold in (0.5, 0.8, 0.95):
        assert await both("link_entities", doc_key=footlocker, entities=entities, threshold=threshold, top=5)
    linked = [await link_entities(db, doc, names, [e["vector"] for e in entities], threshold=0.8, top=3,
                                  engine=e) for e in ("cypher", "plugin")]
    assert linked[0] == linked[1] and linked[0][0]  # "foot locker" links by its name

    # two blocks written with the best block's embedding (after the plugin cached the document's vectors): a tie
    # with it, broken by key as Cypher breaks it, and no stale score after they change or go
    vector = list(map(float, vectors[0]))
    (best,) = await both("nearest_nodes", doc_keys=[footlocker], embedding=vector, top=1)
    copy = "CREATE (n:TreeNode:Text {key: $key, doc_key: $doc, kind: 'text'}) WITH n MATCH (b:TreeNode {key: $best}) " \
           "CALL db.create.setNodeVectorProperty(n, 'embedding', b.embedding)"
    ties = [f"{footlocker}-0tie", f"{footlocker}-ztie"]
    try:
        for key in ties:
            await db.run(copy, {"key": key, "doc": footlocker, "best": best["key"]})
        tied = await both("nearest_nodes", doc_keys=[footlocker], embedding=vector, top=3)
        assert [r["key"] for r in tied] == sorted([best["key"], *ties]) and len({r["score"] for r in tied}) == 1
        assert np.array_equal(*[await block_similarities(db, doc, blocks, vector, engine=e)
                                for e in ("cypher", "plugin")], equal_nan=True)
        assert len(blocks.plugin_rows) == 2  # two keys more: a new order, whose keys came with it
        await db.run("MATCH (n:TreeNode {key: $key}) CALL db.create.setNodeVectorProperty(n, 'embedding', $v)",
                        {"key": ties[0], "v": [-x for x in vector]})
        assert ties[0] not in [r["key"] for r in await both("nearest_nodes", doc_keys=[footlocker],
                                                            embedding=vector, top=3)]
    finally:
        await db.run("MATCH (n:TreeNode) WHERE n.key IN $keys DETACH DELETE n", {"keys": ties})
    assert not {r["key"] for r in await both("nearest_nodes", doc_keys=[footlocker], embedding=vector,
                                             top=10_000)} & set(ties)


async def test_a_question_gives_the_same_evidence_with_and_without_the_plugin(
        db: Neo4jClient, footlocker: str, settings: Settings, offline_models: Models) -> None:
    found = []
    for engine in ("cypher", "auto"):
        agent = Retriever(db, settings.replace(vector_engine=engine), offline_models, use_llm=False)
        evidence = await agent.retrieve(QUESTION, [footlocker])
        found.append([(n.key, n.text_score, n.graph_score) for n in evidence.nodes])
    assert found[0] == found[1] and found[0]
