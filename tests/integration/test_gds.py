"""Graph_Reasoning's PageRank on GDS: a document's catalog projection matches a reference computation and the
in-process engine; it is made once per graph build, dropped with its document, held to a memory budget, and
made again after a server restart. Temporary projections never leak."""

from __future__ import annotations

import asyncio

import networkx as nx
import numpy as np
import pytest

from bookrag_neo4j.db import projections as projections_module
from bookrag_neo4j.db.client import GraphClient
from bookrag_neo4j.db.gds import list_projections
from bookrag_neo4j.db.projections import DocumentProjections, drop_document_projections, held_projections, projection_name
from bookrag_neo4j.library.catalogue import delete_entities
from bookrag_neo4j.retrieval.reasoners import pagerank

# A small weighted graph with two communities joined by one bridge, plus an isolated entity.
EDGES = [
    ("a", "b", 3.0), ("a", "c", 1.0), ("b", "c", 2.0), ("c", "d", 1.0),  # community 1
    ("d", "e", 0.5),                                                       # bridge
    ("e", "f", 2.0), ("f", "g", 1.0), ("e", "g", 4.0), ("g", "h", 1.0),  # community 2
]
NODES = list("abcdefghz")  # z is isolated
OUTSIDE = "x"  # another document's entity related to a: must not enter this document's projection
DOC, OTHER = "test-ppr", "test-ppr-other"
BUDGET = 512 * 2**20


def key(name: str, doc: str = DOC) -> str:
    return f"{doc}-{name}"


async def build(graph: GraphClient, doc: str = DOC) -> None:
    await graph.run("UNWIND $keys AS k CREATE (:Entity {key: k, doc_key: $doc})",
                    {"keys": [key(n, doc) for n in NODES], "doc": doc})
    await graph.run("CREATE (:Entity {key: $k, doc_key: $doc})", {"k": key(OUTSIDE, doc), "doc": f"{doc}-x"})
    edges = [{"s": key(s, doc), "t": key(t, doc), "w": w} for s, t, w in EDGES]
    edges.append({"s": key(OUTSIDE, doc), "t": key("a", doc), "w": 9.0})
    await graph.run("UNWIND $edges AS e MATCH (s:Entity {key: e.s}), (t:Entity {key: e.t}) "
                    "CREATE (s)-[:RELATED {weight: e.w}]->(t)", {"edges": edges})


@pytest.fixture
async def entities(graph: GraphClient, schema):
    await build(graph)
    yield
    for doc in (DOC, OTHER):
        await drop_document_projections(graph, doc)


def reference(sources: list[str], damping: float) -> dict[str, float]:
    g = nx.Graph()
    g.add_nodes_from(NODES)
    g.add_weighted_edges_from(EDGES)
    personalization = {n: (1.0 if n in sources else 0.0) for n in NODES}
    return nx.pagerank(g, alpha=damping, personalization=personalization, weight="weight", tol=1e-12, max_iter=1000)


@pytest.mark.parametrize(("sources", "damping"), [(["a"], 0.85), (["a", "g"], 0.85), (["f"], 0.5)])
async def test_document_pagerank_matches_networkx_and_the_local_engine(graph: GraphClient, entities, sources,
                                                                       damping) -> None:
    got = await DocumentProjections().pagerank(graph, DOC, "v1", [key(s) for s in sources], budget_bytes=BUDGET,
                                               damping=damping, max_iterations=1000, tolerance=1e-12)
    scores = {k.removeprefix(f"{DOC}-"): v for k, v in got.items()}
    assert OUTSIDE not in scores and "z" not in scores  # another document's entity; unreachable: score 0
    expected = reference(sources, damping)
    total = sum(scores.values())
    for n in NODES:  # GDS scores are not normalised; their shares are networkx's
        assert scores.get(n, 0.0) / total == pytest.approx(expected[n], abs=1e-6)
    # the in-process engine computes the same scores (not only the same shares)
    index = {n: i for i, n in enumerate(NODES)}
    local = pagerank(len(NODES), np.array([index[s] for s, _, _ in EDGES]), np.array([index[t] for _, t, _ in EDGES]),
                     np.array([w for *_, w in EDGES]), [index[s] for s in sources], damping=damping,
                     max_iterations=1000, tolerance=1e-12)
    for n in NODES:  # GDS's own computation: equal to float rounding
        assert scores.get(n, 0.0) == pytest.approx(local[index[n]], abs=1e-12)
    assert await list_projections(graph) == []  # no temporary projection: the document's is kept on purpose


async def test_one_projection_a_graph_build_dropped_with_it(graph: GraphClient, entities, monkeypatch) -> None:
    projections = DocumentProjections()
    writes: list[str] = []
    real_write = graph.write

    async def counting_write(name: str, **params):
        writes.append(name)
        return await real_write(name, **params)

    graph.write = counting_write  # type: ignore[method-assign]
    first = await projections.pagerank(graph, DOC, "v1", [key("a")], budget_bytes=BUDGET)
    assert await projections.pagerank(graph, DOC, "v1", [key("a")], budget_bytes=BUDGET) == first
    assert writes.count("gds/project_document_entities") == 1  # made once, used twice
    assert set(await held_projections(graph)) >= {projection_name(DOC, "v1")}

    # a rebuilt graph (another version) gets its own projection; the stale one is dropped
    await projections.pagerank(graph, DOC, "v2", [key("a")], budget_bytes=BUDGET)
    mine = [n for n in await held_projections(graph) if n.startswith(f"bookrag-doc-{DOC}-")]
    assert mine == [projection_name(DOC, "v2")]

    # gone behind this process's back (what a server restart does): made again, same scores
    await graph.write("gds/drop_graph", graph_name=projection_name(DOC, "v2"))
    assert await projections.pagerank(graph, DOC, "v2", [key("a")], budget_bytes=BUDGET) == pytest.approx(first)
    assert writes.count("gds/project_document_entities") == 3

    # over the budget: the least recently used document projection makes room for the new one (once unused for
    # IN_USE_SECONDS: see the next test)
    monkeypatch.setattr(projections_module, "IN_USE_SECONDS", 0.0)
    await build(graph, OTHER)
    await projections.pagerank(graph, OTHER, "v1", [key("a", OTHER)], budget_bytes=1)
    held = set(await held_projections(graph))
    assert projection_name(OTHER, "v1") in held and projection_name(DOC, "v2") not in held

    # deleting a document's graph (a rebuild, or `docs delete`) drops its projections
    await delete_entities(graph, OTHER)
    assert not [n for n in await held_projections(graph) if n.startswith(f"bookrag-doc-{OTHER}-")]


async def test_two_processes_projecting_the_same_document_at_once(graph: GraphClient, entities) -> None:
    first, second = DocumentProjections(), DocumentProjections()  # two processes: neither knows the other's
    scores = await asyncio.gather(*(p.pagerank(graph, DOC, "v1", [key("a")], budget_bytes=BUDGET)
                                    for p in (first, second, first, second)))
    assert all(s == pytest.approx(scores[0]) for s in scores)
    assert [n for n in await held_projections(graph) if n.startswith(f"bookrag-doc-{DOC}-")] == [
        projection_name(DOC, "v1")]


async def test_a_process_keeping_its_budget_keeps_the_projections_another_just_used(graph: GraphClient,
                                                                                    entities) -> None:
    """Two processes (a web app and an eval) over a budget that holds one projection: neither drops the one the
    other has just used, else each would drop the other's until a question fails its three attempts."""
    await build(graph, OTHER)
    web, evaluation = DocumentProjections(), DocumentProjections()
    try:
        assert await web.pagerank(graph, DOC, "v1", [key("a")], budget_bytes=1)
        assert await evaluation.pagerank(graph, OTHER, "v1", [key("a", OTHER)], budget_bytes=1)
        held = set(await held_projections(graph))
        assert {projection_name(DOC, "v1"), projection_name(OTHER, "v1")} <= held
    finally:
        await delete_entities(graph, OTHER)

async def test_a_projection_another_process_drops_before_its_use_is_made_again(graph: GraphClient,
                                                                                  entities) -> None:
    """Two processes share the catalog and each keeps its own budget: one may drop a projection the other has just
    made and not used yet. The question projects it again (at most three attempts in all) instead of failing."""
    reference_scores = await DocumentProjections().pagerank(graph, DOC, "v1", [key("a")], budget_bytes=BUDGET)
    await drop_document_projections(graph, DOC)
    projections, made = DocumentProjections(), []
    ensure = projections.ensure

    async def made_then_dropped(*args, **kwargs) -> str:  # the other process drops it after the first making
        name = await ensure(*args, **kwargs)
        made.append(name)
        if len(made) == 1:
            await graph.write("gds/drop_graph", graph_name=name)
        return name

    projections.ensure = made_then_dropped  # type: ignore[method-assign]
    # (node_scores, Graph_Reasoning's call, goes through the same again_when_missing)
    assert await projections.pagerank(graph, DOC, "v1", [key("a")], budget_bytes=BUDGET) == \
        pytest.approx(reference_scores)
    assert len(made) == 2  # made, dropped by "the other process", made again
