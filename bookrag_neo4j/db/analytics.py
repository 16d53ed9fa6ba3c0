"""Graph Data Science through its Python client (``graphdatascience``): DataFrames, ``Graph`` objects, KNN.

    gds = open_gds(conn)                          # a GraphDataScience on the library's server and database
    with entity_graph(gds, doc_key) as G:         # a document's entities and their edges; dropped after the block
        communities = gds.leiden.stream(G, random_seed=42, concurrency=1)       # nodeId, communityId
    similar = write_similar(conn, doc_key, top_k=5, cutoff=0.5)   # the layout layer's SIMILAR edges (KNN)

The synchronous side of GDS: the SDK's ``rag.gds`` and ``rag.entity_graph(doc)``, and the layout layer's KNN (on a
worker thread while indexing). The question path stays on the async helpers of :mod:`bookrag_neo4j.db.gds`. Both name
their projections ``bookrag-<uuid>`` and read the same projection files (``cypher/gds/project_*.cypher``).
``graphdatascience`` and pandas are imported on first use: the import is costly (docs/gds.md).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import TYPE_CHECKING, Any

from neo4j import NotificationDisabledClassification
from neo4j.exceptions import AuthError, ServiceUnavailable

from ..errors import DocumentError, Neo4jUnavailableError, ServerError
from .client import ConnectionInfo
from .gds import graph_name
from .queries import load_query

if TYPE_CHECKING:
    from graphdatascience import Graph, GraphDataScience
    from graphdatascience.procedure_surface.cypher.catalog.projection_cypher_endpoints import (
        GraphWithCypherProjectResult,
    )
    from pandas import DataFrame

log = logging.getLogger(__name__)


def open_gds(conn: ConnectionInfo) -> GraphDataScience:
    """A ``GraphDataScience`` client on ``conn`` (its own driver, closed by its ``.close()`` or ``with``): Bolt
    only (no Arrow discovery), no progress bars, and, as :class:`~bookrag_neo4j.db.client.Neo4jClient`, no
    warning for a label no data has yet (``Image`` in a document without images)."""
    from graphdatascience import GraphDataScience
    from graphdatascience.error.gds_not_installed import GdsNotFound
    from graphdatascience.error.unable_to_connect import UnableToConnectError
    from graphdatascience.query_runner.neo4j_query_runner import Neo4jQueryRunner

    config = {"notifications_disabled_classifications": [NotificationDisabledClassification.UNRECOGNIZED]}
    try:
        runner = Neo4jQueryRunner.create_for_db(conn.uri, (conn.username, conn.password), database=conn.database,
                                                show_progress=False, config=config)
        return GraphDataScience(runner, arrow=False, show_progress=False)
    except GdsNotFound as exc:
        raise ServerError(f"Neo4j at {conn.uri} has no Graph Data Science plugin: {exc}") from exc
    except (UnableToConnectError, AuthError, ServiceUnavailable) as exc:  # the client wraps the driver's errors
        raise Neo4jUnavailableError(f"the GDS client could not use Neo4j at {conn.uri} as user "
                                    f"{conn.username!r}: {exc}") from exc


def project(gds: GraphDataScience, query: str, **params: Any) -> GraphWithCypherProjectResult | None:
    """Run the named projection query (``cypher/gds/project_*``) under a fresh ``bookrag-<uuid>`` name: the
    ``graph`` and the projection's ``result`` (node and relationship counts), or ``None`` when the query matched
    no node (GDS then makes no graph). Drop the graph when done."""
    name = graph_name()
    try:
        return gds.graph.project.cypher(load_query(query), graph_name=name, **params)
    except ValueError:  # the client's answer to a null projection map; anything else was a real failure
        if gds.graph.exists(name):
            gds.graph.drop(name, fail_if_missing=False)
            raise
        return None


@contextmanager
def entity_graph(gds: GraphDataScience, doc_key: str) -> Iterator[Graph]:
    """A document's entity graph as a GDS ``Graph``: every entity (label ``Entity``; isolated ones too) and the
    ``RELATED`` and ``CONTAINED_IN`` edges among them, undirected, with their ``weight``. Dropped when the block
    ends, also on error. :class:`~bookrag_neo4j.errors.DocumentError` when the document has no entity."""
    projected = project(gds, "gds/project_document_entities", doc_key=doc_key)
    if projected is None:
        raise DocumentError(f"document {doc_key} has no entities: build its knowledge graph first "
                            f"(rag.build_graph(doc), or bookrag index --stage graph)")
    G = projected.graph
    try:
        yield G
    finally:
        G.drop(fail_if_missing=False)
        log.debug("dropped projection %s", G.name())


@asynccontextmanager
async def aentity_graph(gds: GraphDataScience, doc_key: str) -> AsyncIterator[Graph]:
    """:func:`entity_graph` for async code: projection and drop run on a worker thread. Cancelled while the
    projection runs, it waits for it (a thread cannot be stopped) and drops it before the cancellation goes on."""
    projection = entity_graph(gds, doc_key)
    entering = asyncio.ensure_future(asyncio.to_thread(projection.__enter__))
    try:
        G = await asyncio.shield(entering)
    except asyncio.CancelledError:
        await asyncio.wait([entering])
        if entering.exception() is None:
            await asyncio.to_thread(projection.__exit__, None, None, None)
        raise
    try:
        yield G
    finally:
        await asyncio.to_thread(projection.__exit__, None, None, None)  # the generator's finally: the drop


def entity_table(gds: GraphDataScience, G: Graph) -> DataFrame:
    """One row per node of an entity graph, to join a stream's ``nodeId`` with: ``nodeId``, ``key``, ``name``,
    ``type``, ``degree`` (edges in ``G``), ``mentions`` (GT-Links) and ``chapter`` (the top-level section with
    most of its GT-Links; ``None`` when it has none)."""
    degrees = gds.degree.stream(G)
    rows = gds.run_cypher(load_query("gds/entity_table"), {"ids": degrees["nodeId"].tolist()}, mode="READ")
    return rows.merge(degrees.rename(columns={"score": "degree"}).astype({"degree": int}), on="nodeId")[
        ["nodeId", "key", "name", "type", "degree", "mentions", "chapter"]]


def write_similar(conn: ConnectionInfo, doc_key: str, *, top_k: int, cutoff: float, seed: int = 42) -> int:
    """The layout layer's ``SIMILAR {score}`` edges of a document: ``gds.knn.write`` over the embeddings of its
    passages, table rows, tables and images (cosine, at most ``top_k`` a node, above ``cutoff``; one thread and
    a fixed seed: the same layer gives the same edges). The number of edges written; KNN writes both edges of a
    mutual pair: the caller keeps one (``gds/dedupe_similar``, through the Neo4jClient's managed transactions,
    retried on transient errors). Blocking: async code runs it with ``asyncio.to_thread``."""
    with open_gds(conn) as gds:
        projected = project(gds, "gds/project_layout_embeddings", doc_key=doc_key)
        if projected is None:
            return 0
        G = projected.graph
        try:
            if projected.result.node_count < 2:
                return 0
            knn = gds.knn.write(G, node_properties=["embedding"], top_k=top_k, similarity_cutoff=cutoff,
                                random_seed=seed, concurrency=1, write_relationship_type="SIMILAR",
                                write_property="score")
        finally:
            G.drop(fail_if_missing=False)
    return int(knn.relationships_written)
