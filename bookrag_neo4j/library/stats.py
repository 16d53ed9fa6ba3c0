"""Statistics of an indexed document: its tree (pages, sections by level, blocks by type) and its knowledge
graph, as in the paper's Figure 6.

    stats = await document_stats(db, doc_key, with_graph=True)
    stats["sections_by_level"], stats["graph"]["density"], stats["graph"]["largest_component_diameter"]

Counts come from Cypher. The entity graph's edges (RELATED and CONTAINED_IN, undirected) are read once and serve both
the connected components (breadth-first search: on a document's graph, milliseconds, where a GDS projection made
for it took 3–25 s) and the largest component's diameter, estimated by repeated double-sweep breadth-first search
(a lower bound that is exact on trees and usually on sparse graphs). Density is ``2E / (N (N - 1))`` over the
undirected entity graph.
"""

from __future__ import annotations

from collections import Counter, defaultdict, deque
from typing import Any

from ..db.client import Neo4jClient
from ..errors import DocumentNotFoundError

SWEEPS = 4


def _bfs(adjacency: dict[str, set[str]], start: str) -> tuple[str, int]:
    """The farthest node from ``start`` and its distance."""
    seen = {start: 0}
    queue = deque([start])
    far = start
    while queue:
        node = queue.popleft()
        for other in adjacency[node]:
            if other not in seen:
                seen[other] = seen[node] + 1
                if seen[other] > seen[far]:
                    far = other
                queue.append(other)
    return far, seen[far]


def components(adjacency: dict[str, set[str]]) -> list[tuple[int, str]]:
    """The connected components of the nodes in ``adjacency``: (size, one of its nodes), largest first."""
    seen: set[str] = set()
    found = []
    for start in adjacency:
        if start not in seen:
            seen.add(start)
            queue, size = deque([start]), 0
            while queue:
                size += 1
                for other in adjacency[queue.popleft()] - seen:
                    seen.add(other)
                    queue.append(other)
            found.append((size, start))
    return sorted(found, key=lambda c: -c[0])


def diameter_estimate(adjacency: dict[str, set[str]], start: str, sweeps: int = SWEEPS) -> int:
    """Double-sweep lower bound of the diameter of ``start``'s component."""
    best, node = 0, start
    for _ in range(sweeps):
        node, distance = _bfs(adjacency, node)
        if distance <= best:
            break
        best = distance
    return best


async def graph_statistics(db: Neo4jClient, doc_key: str) -> dict[str, float | int | dict[str, int]]:
    """Entities, relations, GT-Links, merges, density, components and diameter of a document's graph."""
    (row,) = await db.read("kg/stats", doc_key=doc_key)
    n = row["entities"]
    out: dict[str, float | int | dict[str, int]] = {
        "entities": n, "relations": row["relations"], "contained_in": row["contained_in"],
        "gt_links": row["gt_links"], "same_as": row["same_as"], "er_merges": row["merges"], "aliases": row["aliases"],
        "entities_by_type": dict(Counter(row["types"]).most_common()),
    }
    if n == 0:
        return out
    edges = await db.read("kg/entity_edges", doc_key=doc_key)
    adjacency: dict[str, set[str]] = defaultdict(set)
    for edge in edges:
        if edge["source"] != edge["target"]:
            adjacency[edge["source"]].add(edge["target"])
            adjacency[edge["target"]].add(edge["source"])
    undirected = sum(len(v) for v in adjacency.values()) // 2
    linked = components(adjacency)  # the entities without an edge to another are components of one
    sizes = [size for size, _ in linked] + [1] * (n - len(adjacency))
    largest, start = linked[0] if linked else (1, None)
    out |= {
        "edges_undirected": undirected,
        "density": round(2 * undirected / (n * (n - 1)), 8) if n > 1 else 0.0,
        "mean_degree": round(2 * undirected / n, 3),
        "gt_links_per_entity": round(row["gt_links"] / n, 3),
        "components": len(sizes),
        "isolated_entities": n - len(adjacency),
        "largest_component": largest,
        "largest_component_share": round(largest / n, 4),
        "largest_component_diameter": diameter_estimate(adjacency, start) if start else 0,
    }
    return out


async def layout_statistics(db: Neo4jClient, doc_key: str) -> dict[str, Any]:
    """The layout layer's counts as the graph holds them, with its status and config (None: never built)."""
    (row,) = await db.read("layout/counts", doc_key=doc_key)
    (doc,) = await db.read("layout/status", doc_key=doc_key)
    return {"status": doc["status"], "config": doc["config"], **row}


async def content_graph_statistics(db: Neo4jClient, doc_key: str) -> dict[str, Any]:
    """G²-Reader's content graph: nodes and links by kind as the graph holds them, with its status, config,
    evolution, rounds and seconds (None: never built)."""
    (row,) = await db.read("content/counts", doc_key=doc_key)
    (doc,) = await db.read("content/status", doc_key=doc_key)
    return {**doc, "nodes": row["nodes"],
            "links": {"window": row["window_links"], "knn": row["knn_links"], "llm": row["llm_links"]}}


async def document_stats(db: Neo4jClient, doc_key: str, *, with_graph: bool = False) -> dict[str, Any]:
    """Counts: pages, blocks by type, sections by level, the layout layer's and the content graph's counts;
    ``with_graph``: the knowledge graph's statistics (see :func:`graph_statistics`)."""
    rows = await db.read("library/stats", doc_key=doc_key)
    if not rows:
        raise DocumentNotFoundError(f"no indexed document with key {doc_key!r}")
    row = rows[0]
    sections = Counter(row["levels"])
    blocks = Counter(row["kinds"])
    return {
        "key": row["key"], "name": row["name"], "title": row["title"], "documents": 1, "pages": row["pages"],
        "sections": sum(sections.values()),
        "sections_by_level": {k: sections[k] for k in sorted(sections, key=lambda k: int(k[1:]))},
        "blocks": sum(blocks.values()), "blocks_by_type": dict(sorted(blocks.items())),
        "layout": await layout_statistics(db, doc_key),
        "content_graph": await content_graph_statistics(db, doc_key),
    } | ({"graph": await graph_statistics(db, doc_key)} if with_graph else {})
