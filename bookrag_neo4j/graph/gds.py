"""Graph Data Science on the async driver: projections that are always dropped, personalized PageRank, WCC.

    async with projected_entity_graph(graph, entity_keys) as projection:
        scores = await personalized_pagerank(graph, projection, source_keys=["e1"])
    async with projected_document_entities(graph, doc_key) as projection:
        components = await weakly_connected_components(graph, projection)

Each projection gets a unique name (``bookrag-<uuid>``, :func:`graph_name`) and is dropped when the ``async
with`` block ends, even on error or cancellation, so no named graph leaks onto the server's heap. GDS
procedures run with write routing, so projection, algorithm and drop reach the same cluster member.

These serve the question path (PPR: one named query a step, no thread hop) and the statistics. The
``graphdatascience`` client (DataFrames, ``Graph`` objects: ``rag.gds``, ``rag.entity_graph(doc)``) and the
layout layer's KNN are in :mod:`bookrag_neo4j.graph.analytics`; both read the same projection files.
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


def graph_name() -> str:
    """A fresh projection name: ``bookrag-<uuid>`` (:func:`list_projections` finds those left behind)."""
    return f"{GRAPH_NAME_PREFIX}{uuid.uuid4().hex}"


@asynccontextmanager
async def _projection(graph: GraphClient, query: str, **params: object) -> AsyncIterator[Projection]:
    """Run a projection file (one ``RETURN gds.graph.project(...)``: a map, null when no node matched)."""
    name = graph_name()
    try:
        (row,) = await graph.write(query, graph_name=name, **params)
        projected = next(iter(row.values())) or {"nodeCount": 0, "relationshipCount": 0}
        yield Projection(name=name, node_count=projected["nodeCount"], relationship_count=projected["relationshipCount"])
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
