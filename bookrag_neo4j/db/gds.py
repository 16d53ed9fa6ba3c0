"""Graph Data Science on the async driver: whether a server has it, and the names of projections.

    if await gds_installed(db): ...
    name = graph_name()                     # bookrag-<uuid>: a temporary projection, always dropped by its maker
    await list_projections(db)           # the temporary ones left behind (should be none)

Temporary projections (the scale probe's, ``rag.gds``'s in :mod:`bookrag_neo4j.db.analytics`) are named here so that
:func:`list_projections` finds any left behind; Graph_Reasoning's PageRank uses the catalog projections of
:mod:`.projections`, kept on purpose. GDS procedures run with write routing, so projection, algorithm and drop
reach the same cluster member.
"""

from __future__ import annotations

import uuid

from .client import Neo4jClient

GRAPH_NAME_PREFIX = "bookrag-"
DOCUMENT_PREFIX = "bookrag-doc-"  # the documents' projections kept in the catalog (:mod:`.projections`)
PAGERANK_CONCURRENCY = 1  # a question's PageRank: one thread (a document's graph is small; see gds/node_pagerank)


def graph_name() -> str:
    """A fresh projection name: ``bookrag-<uuid>`` (:func:`list_projections` finds those left behind)."""
    return f"{GRAPH_NAME_PREFIX}{uuid.uuid4().hex}"


_INSTALLED: dict[tuple[str, str], bool] = {}  # (uri, database) -> whether its server has GDS


async def gds_installed(db: Neo4jClient) -> bool:
    """Whether ``graph``'s server has the GDS plugin: asked once a server and database by this process (the
    engine a question's PageRank runs on is chosen without a round trip), until :func:`forget_gds`."""
    slot = (db.conn.uri, db.conn.database)
    if slot not in _INSTALLED:
        rows = await db.read("server/gds_installed")
        _INSTALLED[slot] = bool(rows and rows[0]["installed"])
    return _INSTALLED[slot]


def forget_gds(db: Neo4jClient) -> None:
    """Ask :func:`gds_installed` anew next time (a GDS call found no procedure: the plugin was removed)."""
    _INSTALLED.pop((db.conn.uri, db.conn.database), None)


async def list_projections(db: Neo4jClient) -> list[str]:
    """Names of the temporary projections this package created that are still on the server (should be none;
    the documents' catalog projections of :mod:`.projections` are kept on purpose and not listed)."""
    rows = await db.write("gds/list_graphs")
    return [row["graph_name"] for row in rows if row["graph_name"].startswith(GRAPH_NAME_PREFIX)
            and not row["graph_name"].startswith(DOCUMENT_PREFIX)]
