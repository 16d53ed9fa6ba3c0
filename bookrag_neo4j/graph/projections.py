"""Each document's entity graph, kept as a named projection in the GDS graph catalog for Graph_Reasoning.

    projections = DocumentProjections()
    scores = await projections.pagerank(graph, doc_key, version, ["<entity key>"], budget_bytes=512 * 2**20)
    await drop_document_projections(graph, doc_key)      # its graph was rebuilt, or it was deleted

A question used to project the entities around its selection and drop them again: 359 ms of a 450 ms
Graph_Reasoning step. Here one projection a document lives in the catalog across questions:

- **Named by the graph build.** ``bookrag-doc-<doc key>-<hash of Document.graph_version>``: a rebuilt graph
  gets a new name, and the stale projection of the same document is dropped when the new one is made (and by
  :func:`drop_document_projections`, which the graph build and ``docs delete`` call).
- **Made at the first question** that needs it. A server restart empties the catalog: the PageRank call then
  fails with "not found", and the projection is made again and the call repeated, once. Two processes making
  the same projection at once is harmless: the loser finds it made.
- **Held to a memory budget.** Before projecting, GDS estimates the new graph's heap
  (``gds.graph.project.estimate`` for the document's entity and edge counts); this package's document
  projections are dropped, least recently used first (by this process; those it never used first), until the
  catalog's ``sizeInBytes`` of them plus the estimate fit the budget (``BOOKRAG_GDS_PROJECTION_BUDGET_MB``).
  A single document larger than the budget is still projected alone.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Sequence

from neo4j.exceptions import ClientError

from .client import GraphClient
from .gds import COMMUNITY_MAX_CONCURRENCY, DOCUMENT_PREFIX

log = logging.getLogger(__name__)



def projection_name(doc_key: str, version: str) -> str:
    """The catalog name of ``doc_key``'s entity graph at graph build ``version``."""
    return f"{DOCUMENT_PREFIX}{doc_key}-{hashlib.sha256(version.encode()).hexdigest()[:12]}"


async def held_projections(graph: GraphClient) -> dict[str, int]:
    """This package's document projections in the catalog: heap bytes by name (none on a server without GDS)."""
    try:
        rows = await graph.write("gds/list_graphs")
    except ClientError as exc:
        if exc.code != "Neo.ClientError.Procedure.ProcedureNotFound":
            raise
        return {}
    return {r["graph_name"]: r["size_bytes"] for r in rows if r["graph_name"].startswith(DOCUMENT_PREFIX)}


async def drop_document_projections(graph: GraphClient, doc_key: str, *, keep: str | None = None) -> list[str]:
    """Drop every catalog projection of ``doc_key`` (but ``keep``); the names dropped."""
    stale = [n for n in await held_projections(graph) if n.startswith(f"{DOCUMENT_PREFIX}{doc_key}-") and n != keep]
    for name in stale:
        await graph.write("gds/drop_graph", graph_name=name)
    if stale:
        log.info("dropped %d stale projection(s) of %s", len(stale), doc_key)
    return stale


def _missing(exc: ClientError) -> bool:
    return "not found" in (exc.message or "").lower() or "does not exist" in (exc.message or "").lower()


class DocumentProjections:
    """The catalog projections this process uses, with their last use (see the module docstring)."""

    def __init__(self) -> None:
        self._used: dict[str, float] = {}  # name -> monotonic time of last use (known to exist then)
        self._keys: dict[str, dict[int, str]] = {}  # name -> entity key by GDS node id
        self._locks: dict[str, asyncio.Lock] = {}

    async def ensure(self, graph: GraphClient, doc_key: str, version: str, *, budget_bytes: int,
                     fresh: bool = False) -> str:
        """The name of ``doc_key``'s projection at ``version``, projected first when the catalog lacks it, within
        ``budget_bytes`` (``fresh``: the caller found it gone, whatever this process remembers)."""
        name = projection_name(doc_key, version)
        if fresh:
            self._used.pop(name, None)
            self._keys.pop(name, None)
        if name in self._used:
            return name
        async with self._locks.setdefault(name, asyncio.Lock()):
            if name not in self._used:
                (row,) = await graph.write("gds/graph_exists", graph_name=name)
                if not row["exists"]:
                    await drop_document_projections(graph, doc_key, keep=name)
                    await self._make_room(graph, doc_key, budget_bytes)
                    try:
                        await graph.write("gds/project_document_entities", graph_name=name, doc_key=doc_key)
                        log.info("projected the entity graph of %s as %s", doc_key, name)
                    except ClientError as exc:  # another process made it first: "Graph name ... already loaded"
                        if "already" not in (exc.message or ""):
                            raise
                self._used[name] = time.monotonic()
        return name

    async def _make_room(self, graph: GraphClient, doc_key: str, budget_bytes: int) -> None:
        (counts,) = await graph.read("gds/library_entity_counts", doc_keys=[doc_key])
        (estimate,) = await graph.write("gds/estimate_projection", nodes=counts["entities"],
                                        relationships=2 * counts["edges"])  # undirected: both directions
        held = await held_projections(graph)
        for name in sorted(held, key=lambda n: (self._used.get(n, 0.0), n)):
            if sum(held.values()) + estimate["bytes_max"] <= budget_bytes:
                break
            await graph.write("gds/drop_graph", graph_name=name)
            log.info("dropped projection %s (%d bytes) to stay within the budget", name, held.pop(name))
            self._used.pop(name, None)
            self._keys.pop(name, None)

    async def pagerank(self, graph: GraphClient, doc_key: str, version: str, source_keys: Sequence[str], *,
                       budget_bytes: int, damping: float = 0.85, max_iterations: int = 50,
                       tolerance: float = 1e-7) -> dict[str, float]:
        """Personalized PageRank over the document's whole entity graph (``gds.pageRank.stream`` with
        ``sourceNodes``): score by entity key for the entities the walk reaches."""
        params = dict(source_keys=list(source_keys), damping=damping, max_iterations=max_iterations,
                      tolerance=tolerance, concurrency=COMMUNITY_MAX_CONCURRENCY)
        name = await self.ensure(graph, doc_key, version, budget_bytes=budget_bytes)
        try:
            rows = await graph.write_rows("gds/document_pagerank", graph_name=name, **params)
        except ClientError as exc:  # e.g. the server restarted: its catalog is empty
            if not _missing(exc):
                raise
            log.info("projection %s is gone (server restarted?): projecting it again", name)
            name = await self.ensure(graph, doc_key, version, budget_bytes=budget_bytes, fresh=True)
            rows = await graph.write_rows("gds/document_pagerank", graph_name=name, **params)
        self._used[name] = time.monotonic()
        if name not in self._keys:
            self._keys[name] = dict(await graph.write_rows("gds/projection_node_keys", graph_name=name))
        keys = self._keys[name]
        return {keys[node]: score for node, score in rows if node in keys}


PROJECTIONS = DocumentProjections()  # shared by every agent of the process
