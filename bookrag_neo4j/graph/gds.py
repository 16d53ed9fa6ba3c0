"""Graph Data Science helpers: projections that are always dropped, and personalized PageRank.

    async with projected_entity_graph(graph, entity_keys) as projection:
        scores = await personalized_pagerank(graph, projection, source_keys=["e1"])
    async with projected_layout_embeddings(graph, doc_key) as projection:
        edges = await knn_write_similar(graph, projection, doc_key, top_k=5, cutoff=0.5)

Each projection gets a unique name (``bookrag-<uuid>``) and is dropped when the ``async with`` block ends,
even on error or cancellation, so no named graph leaks onto the server's heap. GDS procedures run with write
routing, so projection, algorithm and drop reach the same cluster member.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager as AsyncContextManager
from contextlib import asynccontextmanager
from dataclasses import dataclass

from .client import GraphClient

log = logging.getLogger(__name__)

GRAPH_NAME_PREFIX = "bookrag-"
COMMUNITY_MAX_CONCURRENCY = 4  # OpenGDS caps concurrency at 4


@dataclass(frozen=True)
class Projection:
    """An in-memory GDS graph that exists while its ``async with`` block runs."""

    name: str
    node_count: int
    relationship_count: int


@asynccontextmanager
async def _projection(graph: GraphClient, query: str, **params: object) -> AsyncIterator[Projection]:
    name = f"{GRAPH_NAME_PREFIX}{uuid.uuid4().hex}"
    try:
        (row,) = await graph.write(query, graph_name=name, **params)
        yield Projection(name=name, node_count=row["node_count"], relationship_count=row["relationship_count"])
    finally:
        await graph.write("gds/drop_graph", graph_name=name)
        log.debug("dropped projection %s", name)


def projected_entity_graph(graph: GraphClient, entity_keys: Sequence[str]) -> AsyncContextManager[Projection]:
    """Project the entities ``entity_keys`` and the ``RELATED``/``CONTAINED_IN`` edges among them (undirected,
    weighted); drop the projection after."""
    return _projection(graph, "gds/project_entity_subgraph", entity_keys=list(entity_keys))


def projected_document_entities(graph: GraphClient, doc_key: str) -> AsyncContextManager[Projection]:
    """Project all entities of a document and the edges among them; drop the projection after."""
    return _projection(graph, "gds/project_document_entities", doc_key=doc_key)


def projected_layout_embeddings(graph: GraphClient, doc_key: str) -> AsyncContextManager[Projection]:
    """Project a document's passages, table rows, tables and images with their embeddings (no relationships),
    for KNN; drop the projection after."""
    return _projection(graph, "gds/project_layout_embeddings", doc_key=doc_key)


async def knn_write_similar(graph: GraphClient, projection: Projection, doc_key: str, *, top_k: int, cutoff: float,
                            seed: int = 42) -> int:
    """``gds.knn.write`` of ``SIMILAR {score}`` edges over the projection's embeddings (one thread, fixed seed:
    deterministic), then one edge kept of each mutual pair; the number of edges left."""
    if projection.node_count < 2:
        return 0
    (row,) = await graph.write("gds/knn_write", graph_name=projection.name, top_k=top_k, cutoff=cutoff, seed=seed)
    (dropped,) = await graph.write("gds/dedupe_similar", doc_key=doc_key)
    return row["written"] - dropped["deleted"]


async def weakly_connected_components(graph: GraphClient, projection: Projection) -> dict[str, int]:
    """Component id by entity key (``gds.wcc.stream``)."""
    rows = await graph.write("gds/wcc", graph_name=projection.name, concurrency=COMMUNITY_MAX_CONCURRENCY)
    return {row["key"]: row["component"] for row in rows}


async def personalized_pagerank(
    graph: GraphClient,
    projection: Projection,
    *,
    source_keys: Sequence[str],
    damping: float = 0.85,
    max_iterations: int = 50,
    tolerance: float = 1e-7,
    concurrency: int = COMMUNITY_MAX_CONCURRENCY,
) -> dict[str, float]:
    """Personalized PageRank scores by entity key, teleporting to ``source_keys`` (``gds.pageRank.stream``)."""
    rows = await graph.write(
        "gds/personalized_pagerank",
        graph_name=projection.name,
        source_keys=list(source_keys),
        damping=damping,
        max_iterations=max_iterations,
        tolerance=tolerance,
        concurrency=concurrency,
    )
    return {row["key"]: row["score"] for row in rows}


async def list_projections(graph: GraphClient) -> list[str]:
    """Names of the projections this package created that are still on the server (should be none)."""
    rows = await graph.write("gds/list_graphs")
    return [row["graph_name"] for row in rows if row["graph_name"].startswith(GRAPH_NAME_PREFIX)]
