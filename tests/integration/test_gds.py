"""Personalized PageRank through GDS matches a reference computation; projections never leak."""

from __future__ import annotations

import networkx as nx
import pytest

from bookrag_neo4j.graph.client import GraphClient
from bookrag_neo4j.graph.gds import list_projections, personalized_pagerank, projected_entity_graph

# A small weighted graph with two communities joined by one bridge, plus an isolated entity.
EDGES = [
    ("a", "b", 3.0), ("a", "c", 1.0), ("b", "c", 2.0), ("c", "d", 1.0),  # community 1
    ("d", "e", 0.5),                                                       # bridge
    ("e", "f", 2.0), ("f", "g", 1.0), ("e", "g", 4.0), ("g", "h", 1.0),  # community 2
]
NODES = list("abcdefghz")  # z is isolated
OUTSIDE = "x"  # related to a, but not selected: must not enter the projection


def key(name: str) -> str:
    return f"test-ppr-{name}"


async def build(graph: GraphClient) -> None:
    await graph.run(
        "UNWIND $keys AS k CREATE (:Entity {key: k, doc_key: 'test-ppr'})", {"keys": [key(n) for n in NODES + [OUTSIDE]]}
    )
    edges = [{"s": key(s), "t": key(t), "w": w} for s, t, w in EDGES] + [{"s": key(OUTSIDE), "t": key("a"), "w": 9.0}]
    await graph.run(
        "UNWIND $edges AS e MATCH (s:Entity {key: e.s}), (t:Entity {key: e.t}) CREATE (s)-[:RELATED {weight: e.w}]->(t)",
        {"edges": edges},
    )


def reference(sources: list[str], damping: float) -> dict[str, float]:
    g = nx.Graph()
    g.add_nodes_from(NODES)
    g.add_weighted_edges_from(EDGES)
    personalization = {n: (1.0 if n in sources else 0.0) for n in NODES}
    return nx.pagerank(g, alpha=damping, personalization=personalization, weight="weight", tol=1e-12, max_iter=1000)


@pytest.mark.parametrize(("sources", "damping"), [(["a"], 0.85), (["a", "g"], 0.85), (["f"], 0.5)])
async def test_personalized_pagerank_matches_networkx(graph: GraphClient, schema, sources, damping) -> None:
    await build(graph)
    async with projected_entity_graph(graph, [key(n) for n in NODES]) as projection:
        assert projection.node_count == len(NODES)
        assert projection.relationship_count == 2 * len(EDGES)  # undirected: both directions
        scores = await personalized_pagerank(
            graph, projection, source_keys=[key(s) for s in sources], damping=damping, max_iterations=1000, tolerance=1e-12
        )
    expected = reference(sources, damping)
    got = {k.removeprefix("test-ppr-"): v for k, v in scores.items()}
    assert set(got) == set(NODES)
    ranked = sorted(NODES, key=lambda n: (-expected[n], n))
    assert sorted(NODES, key=lambda n: (-got[n], n)) == ranked
    total = sum(got.values())
    for n in NODES:  # GDS scores are not normalised; their shares are networkx's
        assert got[n] / total == pytest.approx(expected[n], abs=1e-6)
    assert got["z"] == 0.0
    assert await list_projections(graph) == []


async def test_projection_is_dropped_on_error(graph: GraphClient, schema) -> None:
    await build(graph)
    with pytest.raises(RuntimeError, match="boom"):
        async with projected_entity_graph(graph, [key("a"), key("b")]) as projection:
            assert projection.node_count == 2
            raise RuntimeError("boom")
    assert await list_projections(graph) == []
