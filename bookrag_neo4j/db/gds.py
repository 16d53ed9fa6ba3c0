"""Graph Data Science on the async driver: temporary projections that are always dropped, and WCC.

    async with projected_document_entities(graph, doc_key) as projection:
        components = await weakly_connected_components(graph, projection)

Each projection gets a unique name (``bookrag-<uuid>``, :func:`graph_name`) and is dropped when the ``async with`` block
ends, even on error or cancellation, so no named graph leaks onto the server's heap; GDS procedures run with write
routing, so projection, algorithm and drop reach the same cluster member. These serve the statistics; Graph_Reasoning's
PageRank uses the catalog projections of :mod:`.projections`, and :func:`gds_installed` (which picks its engine) says
whether a server has GDS. The ``graphdatascience`` client side (``rag.gds``, the layout layer's KNN) is
:mod:`bookrag_neo4j.db.analytics`; both read the same projection files.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager as AsyncContextManager
from contextlib import asynccontextmanager
from dataclasses import dataclass

from .client import GraphClient

log = logging.getLogger(__name__)

GRAPH_NAME_PREFIX = "bookrag-"
DOCUMENT_PREFIX = "bookrag-doc-"  # the documents' projections kept in the catalog (:mod:`.projections`)
COMMUNITY_MAX_CONCURRENCY = 4  # OpenGDS caps concurrency at 4
PAGERANK_CONCURRENCY = 1  # a question's PageRank: one thread (a document's graph is small; see gds/node_pagerank)


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


def projected_document_entities(graph: GraphClient, doc_key: str) -> AsyncContextManager[Projection]:
    """Project all entities of a document and the edges among them; drop the projection after."""
    return _projection(graph, "gds/project_document_entities", doc_key=doc_key)


async def weakly_connected_components(graph: GraphClient, projection: Projection) -> dict[str, int]:
    """Component id by entity key (``gds.wcc.stream``)."""
    rows = await graph.write("gds/wcc", graph_name=projection.name, concurrency=COMMUNITY_MAX_CONCURRENCY)
    return {row["key"]: row["component"] for row in rows}


_INSTALLED: dict[tuple[str, str], bool] = {}  # (uri, database) -> whether its server has GDS


async def gds_installed(graph: GraphClient) -> bool:
    """Whether ``graph``'s server has the GDS plugin: asked once a server and database by this process (the
    engine a question's PageRank runs on is chosen without a round trip), until :func:`forget_gds`."""
    slot = (graph.conn.uri, graph.conn.database)
    if slot not in _INSTALLED:
        rows = await graph.read("server/gds_installed")
        _INSTALLED[slot] = bool(rows and rows[0]["installed"])
    return _INSTALLED[slot]


def forget_gds(graph: GraphClient) -> None:
    """Ask :func:`gds_installed` anew next time (a GDS call found no procedure: the plugin was removed)."""
    _INSTALLED.pop((graph.conn.uri, graph.conn.database), None)


async def list_projections(graph: GraphClient) -> list[str]:
    """Names of the temporary projections this package created that are still on the server (should be none;
    the documents' catalog projections of :mod:`.projections` are kept on purpose and not listed)."""
    rows = await graph.write("gds/list_graphs")
    return [row["graph_name"] for row in rows if row["graph_name"].startswith(GRAPH_NAME_PREFIX)
            and not row["graph_name"].startswith(DOCUMENT_PREFIX)]
