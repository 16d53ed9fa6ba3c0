"""Statistics of an indexed document: its tree (pages, sections by level, blocks by type) and its knowledge
graph, as in the paper's Figure 6.

    stats = await document_stats(db, doc_key, with_graph=True)
    stats.sections_by_level, stats.graph.density, stats.graph.largest_component_diameter

Counts come from Cypher. The entity graph's edges (RELATED and CONTAINED_IN, undirected) are read once and serve both
the connected components (breadth-first search: on a document's graph, milliseconds, where a GDS projection made
for it took 3–25 s) and the largest component's diameter, estimated by repeated double-sweep breadth-first search
(a lower bound that is exact on trees and usually on sparse graphs). Density is ``2E / (N (N - 1))`` over the
undirected entity graph.
"""

from __future__ import annotations

from collections import Counter, defaultdict, deque
from dataclasses import dataclass

from pydantic import BaseModel

from ..db.client import Neo4jClient
from ..errors import DocumentNotFoundError
from .documents import LayoutCounts

SWEEPS = 4


@dataclass(frozen=True, slots=True)
class GraphCountsRow:
    """``kg/stats``: a document's entity and link counts (``types``: each entity's type)."""

    entities: int
    merges: int
    aliases: int
    types: list[str]
    relations: int
    contained_in: int
    gt_links: int
    same_as: int


@dataclass(frozen=True, slots=True)
class EdgeRow:
    """``kg/entity_edges``: one RELATED or CONTAINED_IN edge between two entities."""

    source: str
    target: str


@dataclass(frozen=True, slots=True)
class TreeCountsRow:
    """``library/stats``: a document's pages and each tree node's level (sections, "L1"...) or kind (blocks)."""

    key: str
    name: str
    title: str | None
    pages: int
    levels: list[str]
    kinds: list[str]


class GraphStats(BaseModel):
    """A document's knowledge graph as the paper's Figure 6 counts it (the shape figures are 0 without entities)."""

    entities: int
    relations: int
    contained_in: int
    gt_links: int
    same_as: int
    er_merges: int
    aliases: int
    entities_by_type: dict[str, int]
    edges_undirected: int = 0
    density: float = 0.0
    mean_degree: float = 0.0
    gt_links_per_entity: float = 0.0
    components: int = 0
    isolated_entities: int = 0
    largest_component: int = 0
    largest_component_share: float = 0.0
    largest_component_diameter: int = 0


class LayoutStats(LayoutCounts):
    """SuperRAG's layout layer as the graph holds it (its counts), with its status and config (None: never built)."""

    status: str | None
    config: str | None


class ContentLinks(BaseModel):
    """The content graph's links by kind."""

    window: int
    knn: int
    llm: int


class ContentGraphStats(BaseModel):
    """G²-Reader's content graph as the graph holds it, with its status, config and build (None: never built)."""

    status: str | None
    config: str | None
    evolution: str | None
    rounds: int | None
    evolution_seconds: float | None
    seconds: float | None
    nodes: int
    links: ContentLinks


class DocumentStats(BaseModel):
    """A document's counts: pages, sections by level, blocks by type, its layers' counts; ``graph`` with the
    knowledge graph's statistics when asked for. The SDK adds the document's ``status`` and ``error``, and
    ``partial`` (true while a layer's build has not completed; ``incomplete`` names them)."""

    key: str
    name: str
    title: str | None
    documents: int = 1
    pages: int
    sections: int
    sections_by_level: dict[str, int]
    blocks: int
    blocks_by_type: dict[str, int]
    layout: LayoutStats
    content_graph: ContentGraphStats
    graph: GraphStats | None = None
    status: str | None = None
    error: str | None = None
    partial: bool = False
    incomplete: list[str] = []


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


async def graph_statistics(db: Neo4jClient, doc_key: str) -> GraphStats:
    """Entities, relations, GT-Links, merges, density, components and diameter of a document's graph."""
    (row,) = await db.read_as(GraphCountsRow, "kg/stats", doc_key=doc_key)
    n = row.entities
    counts = GraphStats(entities=n, relations=row.relations, contained_in=row.contained_in, gt_links=row.gt_links,
                        same_as=row.same_as, er_merges=row.merges, aliases=row.aliases,
                        entities_by_type=dict(Counter(row.types).most_common()))
    if n == 0:
        return counts
    adjacency: dict[str, set[str]] = defaultdict(set)
    for edge in await db.read_as(EdgeRow, "kg/entity_edges", doc_key=doc_key):
        if edge.source != edge.target:
            adjacency[edge.source].add(edge.target)
            adjacency[edge.target].add(edge.source)
    undirected = sum(len(v) for v in adjacency.values()) // 2
    linked = components(adjacency)  # the entities without an edge to another are components of one
    sizes = [size for size, _ in linked] + [1] * (n - len(adjacency))
    largest, start = linked[0] if linked else (1, None)
    return counts.model_copy(update={
        "edges_undirected": undirected,
        "density": round(2 * undirected / (n * (n - 1)), 8) if n > 1 else 0.0,
        "mean_degree": round(2 * undirected / n, 3),
        "gt_links_per_entity": round(row.gt_links / n, 3),
        "components": len(sizes),
        "isolated_entities": n - len(adjacency),
        "largest_component": largest,
        "largest_component_share": round(largest / n, 4),
        "largest_component_diameter": diameter_estimate(adjacency, start) if start else 0,
    })


async def layout_statistics(db: Neo4jClient, doc_key: str) -> LayoutStats:
    """The layout layer's counts as the graph holds them, with its status and config (None: never built)."""
    (row,) = await db.read("layout/counts", doc_key=doc_key)
    (doc,) = await db.read("layout/status", doc_key=doc_key)
    return LayoutStats(**doc, **row)


async def content_graph_statistics(db: Neo4jClient, doc_key: str) -> ContentGraphStats:
    """G²-Reader's content graph: nodes and links by kind as the graph holds them, with its status, config,
    evolution, rounds and seconds (None: never built)."""
    (row,) = await db.read("content/counts", doc_key=doc_key)
    (doc,) = await db.read("content/status", doc_key=doc_key)
    links = ContentLinks(window=row.pop("window_links"), knn=row.pop("knn_links"), llm=row.pop("llm_links"))
    return ContentGraphStats(**doc, **row, links=links)


async def document_stats(db: Neo4jClient, doc_key: str, *, with_graph: bool = False) -> DocumentStats:
    """Counts: pages, blocks by type, sections by level, the layout layer's and the content graph's counts;
    ``with_graph``: the knowledge graph's statistics (see :func:`graph_statistics`)."""
    rows = await db.read_as(TreeCountsRow, "library/stats", doc_key=doc_key)
    if not rows:
        raise DocumentNotFoundError(f"no indexed document with key {doc_key!r}")
    row = rows[0]
    sections = Counter(row.levels)
    blocks = Counter(row.kinds)
    return DocumentStats(
        key=row.key, name=row.name, title=row.title, pages=row.pages,
        sections=sum(sections.values()),
        sections_by_level={k: sections[k] for k in sorted(sections, key=lambda k: int(k[1:]))},
        blocks=sum(blocks.values()), blocks_by_type=dict(sorted(blocks.items())),
        layout=await layout_statistics(db, doc_key),
        content_graph=await content_graph_statistics(db, doc_key),
        graph=await graph_statistics(db, doc_key) if with_graph else None)
