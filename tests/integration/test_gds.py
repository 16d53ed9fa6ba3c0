"""Graph_Reasoning's PageRank on GDS: a document's catalog projection matches a reference computation and the
in-process engine; it is made once per graph build, dropped with its document, held to a memory budget, and
made again after a server restart. Temporary projections never leak."""

from __future__ import annotations

import asyncio

import networkx as nx
import numpy as np
import pytest

from bookrag_neo4j.db import projections as projections_module
from bookrag_neo4j.db.client import Neo4jClient
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


async def build(db: Neo4jClient, doc: str = DOC) -> None:
    await db.run("UNWIND $keys AS k CREATE (:Entity {key: k, doc_key: $doc})",
                    {"keys": [key(n, doc) for n in NODES], "doc": doc})
    await db.run("CREATE (:Entity {key: $k, doc_key: $doc})", {"k": key(OUTSIDE, doc), "doc": f"{doc}-x"})
    edges = [{"s": key(s, doc), "t": key(t, doc), "w": w} for s, t, w in EDGES]
    edges.append({"s": key(OUTSIDE, doc), "t": key("a", doc), "w": 9.0})
    await db.run("UNWIND $edges AS e MATCH (s:Entity {key: e.s}), (t:Entity {key: e.t}) "
                    "CREATE (s)-[:RELATED {weight: e.w}]->(t)", {"edges": edges})


@pytest.fixture
async def entities(db: Neo4jClient, schema):
    await build(db)
    yield
    for doc in (DOC, OTHER):
        await drop_document_projections(db, doc)


def reference(sources: list[str], damping: float) -> dict[str, float]:
    g = nx.Graph()
    g.add_nodes_from(NODES)
    g.add_weighted_edges_from(EDGES)
    personalization = {n: (1.0 if n in sources else 0.0) for n in NODES}
    return nx.pagerank(g, alpha=damping, personalization=personalization, weight="weight", tol=1e-12, max_iter=1000)


@pytest.mark.parametrize(("sources", "damping"), [(["a"], 0.85), (["a", "g"], 0.85), (["f"], 0.5)])
async def test_document_pagerank_matches_networkx_and_the_local_engine(db: Neo4jClient, entities, sources,
                                                                       damping) -> None:
    got = await DocumentProjections().pagerank(db, DOC, "v1", [key(s) for s in sources], budget_bytes=BUDGET,
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
    assert await list_projections(db) == []  # no temporary projection: the document's is kept on purpose


async def test_one_projection_a_graph_build_dropped_with_it(db: Neo4jClient, entities, monkeypatch) -> None:
    projections = DocumentProjections()
    writes: list[str] = []
    real_write = db.write

    async def counting_write(name: str, **params):
        writes.append(name)
        return await real_write(name, **params)

    db.write = counting_write  # type: ignore[method-assign]
    first = await projections.pagerank(db, DOC, "v1", [key("a")], budget_bytes=BUDGET)
    assert await projections.pagerank(db, DOC, "v1", [key("a")], budget_bytes=BUDGET) == first
    assert writes.count("gds/project_document_entities") == 1  # made once, used twice
    assert set(await held_projections(db)) >= {projection_name(DOC, "v1")}

    # a rebuilt graph (another version) gets its own projection; the stale one is dropped
    await projections.pagerank(db, DOC, "v2", [key("a")], budget_bytes=BUDGET)
    mine = [n for n in await held_projections(db) if n.startswith(f"bookrag-doc-{DOC}-")]
    assert mine == [projection_name(DOC, "v2")]

    # gone behind this process's back (what a server restart does): made again, same scores
    await db.write("gds/drop_graph", graph_name=projection_name(DOC, "v2"))
    assert await projections.pagerank(db, DOC, "v2", [key("a")], budget_bytes=BUDGET) == pytest.approx(first)
    assert writes.count("gds/project_document_entities") == 3

    # over the budget: the least recently used document projection makes room for the new one (once unused for
    # IN_USE_SECONDS: see the next test)
    monkeypatch.setattr(projections_module, "IN_USE_SECONDS", 0.0)
    await build(db, OTHER)
    await projections.pagerank(db, OTHER, "v1", [key("a", OTHER)], budget_bytes=1)
    held = set(await held_projections(db))
    assert projection_name(OTHER, "v1") in held and projection_name(DOC, "v2") not in held

    # deleting a document's graph (a rebuild, or `docs delete`) drops its projections
    await delete_entities(db, OTHER)
    assert not [n for n in await held_projections(db) if n.startswith(f"bookrag-doc-{OTHER}-")]


async def test_two_processes_projecting_the_same_document_at_once(db: Neo4jClient, entities) -> None:
    first, second = DocumentProjections(), DocumentProjections()  # two processes: neither knows the other's
    scores = await asyncio.gather(*(p.pagerank(db, DOC, "v1", [key("a")], budget_bytes=BUDGET)
                                    for p in (first, second, first, second)))
    assert all(s == pytest.approx(scores[0]) for s in scores)
    assert [n for n in await held_projections(db) if n.startswith(f"bookrag-doc-{DOC}-")] == [
        projection_name(DOC, "v1")]


async def test_a_process_keeping_its_budget_keeps_the_projections_another_just_used(db: Neo4jClient,
                                                                                    entities) -> None:
    """Two processes (a web app and an eval) over a budget that holds one projection: neither drops the one the
    other has just used, else each would drop the other's until a question fails its three attempts."""
    await build(db, OTHER)
    web, evaluation = DocumentProjections(), DocumentProjections()
    try:
        assert await web.pagerank(db, DOC, "v1", [key("a")], budget_bytes=1)
        assert await evaluation.pagerank(db, OTHER, "v1", [key("a", OTHER)], budget_bytes=1)
        held = set(await held_projections(db))
        assert {projection_name(DOC, "v1"), projection_name(OTHER, "v1")} <= held
    finally:
        await delete_entities(db, OTHER)

async def test_a_projection_another_process_drops_before_its_use_is_made_again(db: Neo4jClient,
                                                                                  entities) -> None:
    """Two processes share the catalog and each keeps its own budget: one may drop a projection the other has just
    made and not used yet. The question projects it again (at most three attempts in all) instead of failing."""
    reference_scores = await DocumentProjections().pagerank(db, DOC, "v1", [key("a")], budget_bytes=BUDGET)
    await drop_document_projections(db, DOC)
    projections, made = DocumentProjections(), []
    ensure = projections.ensure

    async def made_then_dropped(*args, **kwargs) -> str:  # the other process drops it after the first making
        name = await ensure(*args, **kwargs)
        made.append(name)
        if len(made) == 1:
            await db.write("gds/drop_graph", graph_name=name)
        return name

    projections.ensure = made_then_dropped  # type: ignore[method-assign]
    # (node_scores, Graph_Reasoning's call, goes through the same again_when_missing)
    assert await projections.pagerank(db, DOC, "v1", [key("a")], budget_bytes=BUDGET) == \
        pytest.approx(reference_scores)
    assert len(made) == 2  # made, dropped by "the other process", made again
