"""Each document's entity graph, kept as a named projection in the GDS graph catalog for Graph_Reasoning.

    projections = DocumentProjections()
    scores = await projections.node_scores(db, [(doc_key, version)], ["<entity key>"], ["<tree node key>"],
                                           budget_bytes=512 * 2**20)       # tree node key -> score
    await drop_document_projections(db, doc_key)      # its graph was rebuilt, or it was deleted

A projection stays in the catalog across questions, so a question's PageRank is one read query. Named by the graph build
(``bookrag-doc-<doc key>-<hash of graph_version>``), a rebuilt graph gets a new one. It is made when a question finds it
missing (after a build or a restart), then the query runs again; two processes making it at once is harmless. The least
recently used are dropped to fit ``BOOKRAG_GDS_PROJECTION_BUDGET_MB`` (with GDS's estimate of the new one): by this
process's last use, else by when the projection was made. One used or made in the last :data:`IN_USE_SECONDS` is
kept even over the budget: another process (a web app, an eval) may be using it, and dropping it would make the two
drop each other's projections until a question fails.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from neo4j.exceptions import ClientError

from .client import Neo4jClient
from .gds import DOCUMENT_PREFIX, PAGERANK_CONCURRENCY

log = logging.getLogger(__name__)



def projection_name(doc_key: str, version: str) -> str:
    """The catalog name of ``doc_key``'s entity graph at graph build ``version``."""
    return f"{DOCUMENT_PREFIX}{doc_key}-{hashlib.sha256(version.encode()).hexdigest()[:12]}"


async def held_projections(db: Neo4jClient) -> dict[str, int]:
    """This package's document projections in the catalog: heap bytes by name (none on a server without GDS)."""
    return {name: size for name, (size, _) in (await _catalog(db)).items()}


async def _catalog(db: Neo4jClient) -> dict[str, tuple[int, float]]:
    """This package's document projections in the catalog: (heap bytes, when made, epoch seconds) by name."""
    try:
        rows = await db.write("gds/list_graphs")
    except ClientError as exc:
        if exc.code != "Neo.ClientError.Procedure.ProcedureNotFound":
            raise
        return {}
    return {r["graph_name"]: (r["size_bytes"], r["created"]) for r in rows
            if r["graph_name"].startswith(DOCUMENT_PREFIX)}


async def drop_document_projections(db: Neo4jClient, doc_key: str, *, keep: str | None = None) -> list[str]:
    """Drop every catalog projection of ``doc_key`` (but ``keep``); the names dropped."""
    stale = [n for n in await held_projections(db) if n.startswith(f"{DOCUMENT_PREFIX}{doc_key}-") and n != keep]
    for name in stale:
        await db.write("gds/drop_graph", graph_name=name)
    if stale:
        log.info("dropped %d stale projection(s) of %s", len(stale), doc_key)
    return stale


def missing_projection(exc: ClientError) -> bool:
    """Whether a GDS call failed because its catalog projection is not there."""
    return "not found" in (exc.message or "").lower() or "does not exist" in (exc.message or "").lower()


ATTEMPTS = 3  # a projection made again can be dropped again by another process keeping to its budget
IN_USE_SECONDS = 60.0  # a projection used or made this recently is kept, even over the budget


async def again_when_missing(call: Callable[[Callable[..., Awaitable[list[Any]]]], Awaitable[list[Any]]],
                             db: Neo4jClient, project: Callable[[], Awaitable[None]]) -> list[Any]:
    """``call`` with read routing; when a projection it needs is missing, ``project`` and ``call`` again with write
    routing (to the member that projected), at most :data:`ATTEMPTS` times in all: another process may drop a
    projection between its making and its use, to keep its own budget."""
    routed = db.read_rows
    for attempt in range(1, ATTEMPTS + 1):
        try:
            return await call(routed)
        except ClientError as exc:  # not made yet, or gone: a server restart empties the catalog
            if not missing_projection(exc) or attempt == ATTEMPTS:
                raise
        await project()
        routed = db.write_rows
    return []  # not reached: the last attempt returns or raises


class DocumentProjections:
    """The catalog projections this process uses, with their last use (see the module docstring)."""

    def __init__(self) -> None:
        self._used: dict[str, float] = {}  # name -> time of last use, epoch seconds (known to exist then)
        self._keys: dict[str, dict[int, str]] = {}  # name -> entity key by GDS node id
        self._locks: dict[str, asyncio.Lock] = {}

    async def ensure(self, db: Neo4jClient, doc_key: str, version: str, *, budget_bytes: int,
                     fresh: bool = False) -> str:
        """The name of ``doc_key``'s projection at ``version``, projected first when the catalog lacks it, within
        ``budget_bytes`` (``fresh``: the caller found it gone, whatever this process remembers). The questions'
        calls run first and come here only when they find a projection missing."""
        name = projection_name(doc_key, version)
        if fresh:
            self._used.pop(name, None)
            self._keys.pop(name, None)
        if name in self._used:
            return name
        async with self._locks.setdefault(name, asyncio.Lock()):
            if name not in self._used:
                (row,) = await db.write("gds/graph_exists", graph_name=name)
                if not row["exists"]:
                    await drop_document_projections(db, doc_key, keep=name)
                    await self._make_room(db, doc_key, budget_bytes)
                    try:
                        await db.write("gds/project_document_entities", graph_name=name, doc_key=doc_key)
                        log.info("projected the entity graph of %s as %s", doc_key, name)
                    except ClientError as exc:  # another process made it first: "Graph name ... already loaded"
                        if "already" not in (exc.message or ""):
                            raise
                self._used[name] = time.time()
        return name

    async def _make_room(self, db: Neo4jClient, doc_key: str, budget_bytes: int) -> None:
        (counts,) = await db.read("gds/library_entity_counts", doc_keys=[doc_key])
        (estimate,) = await db.write("gds/estimate_projection", nodes=counts["entities"],
                                        relationships=2 * counts["edges"])  # undirected: both directions
        catalog = await _catalog(db)
        held = {name: size for name, (size, _) in catalog.items()}
        last = {name: max(self._used.get(name, 0.0), made) for name, (_, made) in catalog.items()}
        for name in sorted(held, key=lambda n: (last[n], n)):
            if sum(held.values()) + estimate["bytes_max"] <= budget_bytes:
                break
            if time.time() - last[name] < IN_USE_SECONDS:
                log.warning("the documents' projections hold %d MB, over BOOKRAG_GDS_PROJECTION_BUDGET_MB: those "
                            "used in the last %.0f s are kept", sum(held.values()) // 2**20, IN_USE_SECONDS)
                break
            await db.write("gds/drop_graph", graph_name=name)
            log.info("dropped projection %s (%d bytes) to stay within the budget", name, held.pop(name))
            self._used.pop(name, None)
            self._keys.pop(name, None)

    async def pagerank(self, db: Neo4jClient, doc_key: str, version: str, source_keys: Sequence[str], *,
                       budget_bytes: int, damping: float = 0.85, max_iterations: int = 50,
                       tolerance: float = 1e-7) -> dict[str, float]:
        """Personalized PageRank over the document's whole entity graph (``gds.pageRank.stream`` with
        ``sourceNodes``): score by entity key for the entities the walk reaches (the GraphRanker baseline's;
        Graph_Reasoning runs :meth:`node_scores`). Reads only; the projection is made when the call finds it
        missing, and the call run again, once."""
        name = projection_name(doc_key, version)
        params = dict(graph_name=name, source_keys=list(source_keys), damping=damping, max_iterations=max_iterations,
                      tolerance=tolerance, concurrency=PAGERANK_CONCURRENCY)

        async def project() -> None:
            log.info("projection %s is missing (a new graph build, or a server restart): projecting it", name)
            await self.ensure(db, doc_key, version, budget_bytes=budget_bytes, fresh=True)
        rows = await again_when_missing(lambda routed: routed("gds/document_pagerank", **params), db, project)
        self._used[name] = time.time()
        if name not in self._keys:
            self._keys[name] = dict(await db.write_rows("gds/projection_node_keys", graph_name=name))
        keys = self._keys[name]
        return {keys[node]: score for node, score in rows if node in keys}

    async def node_scores(self, db: Neo4jClient, documents: Sequence[tuple[str, str]], source_keys: Sequence[str],
                          node_keys: Sequence[str], *, budget_bytes: int, node_score: str = "sum",
                          damping: float = 0.85, max_iterations: int = 50, tolerance: float = 1e-7,
                          ) -> dict[str, float]:
        """Graph_Reasoning on GDS: personalized PageRank over the whole entity graph of each document of
        ``documents`` (``(doc key, graph version)``) that holds one of the entities ``source_keys``, and each
        tree node of ``node_keys`` scored from the scores of the document's entities GT-Linked to it
        (``node_score``: their sum, mean or max): one read query (``gds/node_pagerank``), no write. Projections it
        finds missing are made and the query run again, once. Score by tree-node key (a later document's score
        wins for a node two documents link to)."""
        named = {projection_name(key, version): (key, version) for key, version in documents}
        params = dict(documents=[{"doc_key": key, "graph_name": name} for name, (key, _) in named.items()],
                      source_keys=list(dict.fromkeys(source_keys)), node_keys=list(node_keys), node_score=node_score,
                      damping=damping, max_iterations=max_iterations, tolerance=tolerance,
                      concurrency=PAGERANK_CONCURRENCY)
        if not named or not params["source_keys"] or not params["node_keys"]:
            return {}

        async def project() -> None:
            holding = {r["doc_key"] for r in await db.read("gds/seed_documents", source_keys=params["source_keys"],
                                                               doc_keys=[key for key, _ in named.values()])}
            log.info("a projection is missing (a new graph build, or a server restart): projecting %d document(s) "
                     "that hold a seed", len(holding))
            for key, version in named.values():
                if key in holding:
                    await self.ensure(db, key, version, budget_bytes=budget_bytes, fresh=True)
        rows = await again_when_missing(lambda routed: routed("gds/node_pagerank", **params), db, project)
        scored: dict[str, float] = {}
        now = time.time()
        for name, scores in rows:
            self._used[name] = now
            scored.update(scores)
        return scored


PROJECTIONS = DocumentProjections()  # shared by every agent of the process
