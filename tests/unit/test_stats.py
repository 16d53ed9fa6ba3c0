"""The entity graph's connected components and diameter, computed in the client from its edge list."""

from __future__ import annotations

from collections import defaultdict

from bookrag_neo4j.library.stats import components, diameter_estimate


def adjacency(*edges: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = defaultdict(set)
    for edge in edges:
        a, b = edge.split("-")
        out[a].add(b)
        out[b].add(a)
    return out


def test_components_largest_first_and_the_diameter_of_the_largest() -> None:
    graph = adjacency("a-b", "b-c", "c-d", "x-y", "p-q", "q-r", "r-p")
    found = components(graph)
    assert [size for size, _ in found] == [4, 3, 2]
    size, start = found[0]
    assert start in "abcd" and diameter_estimate(graph, start) == 3  # the path a-b-c-d
    assert components({}) == []
