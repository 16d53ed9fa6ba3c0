"""What ``bookrag bench scale`` reads off the server at each library size: store, heap, page cache, counts, projection.

    footprint = await server_footprint(db, settings)      # store, tx logs, heap, page cache, counts
    memory = await projection_memory(db, doc_keys)        # projected, measured, dropped; with GDS's estimate

Store: the database's files and, apart, its transaction logs, from a managed server's folder (``du`` in its container)
after a restart, as new data sits in the logs until a checkpoint and Community has no ``db.checkpoint()``; on an
external server only Enterprise's JMX metrics know it, else ``None``. Heap: ``dbms.queryJmx``, with the old generation
apart (a whole-heap snapshot includes young garbage). Page cache: only the configured size, as Community exposes no
page-cache bean. Projection: a library-wide entity projection's ``sizeInBytes``, read before it is always dropped,
beside ``gds.graph.project.estimate``; the estimate is far too low (docs/eval/scale-50/).
"""

from __future__ import annotations

import asyncio
import logging
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from neo4j.exceptions import Neo4jError

from ..config import Settings
from ..db.client import Neo4jClient
from ..db.gds import graph_name
from ..errors import ScaleRunError

log = logging.getLogger(__name__)

_UNITS = {"": 1, "B": 1, "K": 1024, "KB": 1024, "KIB": 1024, "M": 1024**2, "MB": 1024**2, "MIB": 1024**2,
          "G": 1024**3, "GB": 1024**3, "GIB": 1024**3, "T": 1024**4, "TB": 1024**4, "TIB": 1024**4}


@dataclass(frozen=True)
class Footprint:
    """The server at one moment: bytes on disk and in memory (``None``: not observable there)."""

    store_bytes: int | None
    tx_log_bytes: int | None
    store_source: str  # where the store size came from: "local files", "docker", or why it is n/a
    heap_used_bytes: int | None
    heap_committed_bytes: int | None
    heap_max_bytes: int | None
    old_gen_used_bytes: int | None  # what survived young collections (the whole heap includes young garbage)
    pagecache_bytes: int | None  # configured (its use is not exposed by Neo4j 5 Community)
    nodes: int
    relationships: int


@dataclass(frozen=True)
class ProjectionMemory:
    """A library-wide entity projection: its size in GDS's accounting and GDS's estimate beforehand."""

    nodes: int
    relationships: int
    size_bytes: int
    estimate_bytes: int | None
    seconds: float


def parse_size(text: str) -> int | None:
    """Neo4j's way of writing a size (``512.00MiB``, ``4g``, ``1073741824``) in bytes; ``None`` if unreadable."""
    match = re.fullmatch(r"\s*([\d.]+)\s*([A-Za-z]*)\s*", text or "")
    if not match or match.group(2).upper() not in _UNITS:
        return None
    return int(float(match.group(1)) * _UNITS[match.group(2).upper()])


def folder_bytes(folder: Path) -> int:
    """The apparent size of every file under ``folder`` (0 when it does not exist)."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else 0


def store_size(settings: Settings, *, checkpoint: bool = False) -> tuple[int | None, int | None, str]:
    """(store bytes, transaction-log bytes, source) of the configured database; blocking (files, ``docker``).
    ``checkpoint``: restart a managed server first, so that the store files hold everything written."""
    from ..server.manager import resolve_mode, start_server, stop_server

    mode = resolve_mode(settings)
    db = settings.neo4j.database
    if checkpoint and mode in ("local", "docker"):
        stop_server(settings)
        status = start_server(settings)
        if not status.running:
            raise ScaleRunError(f"the server did not come back after its checkpoint restart: {status.detail}")
    if mode == "local":
        data = settings.instance_dir / "data"
        return folder_bytes(data / "databases" / db), folder_bytes(data / "transactions" / db), "local files"
    if mode == "docker":
        return _docker_store_size(settings, db)
    return None, None, "n/a (external server: Neo4j 5 reports no store size over Bolt without Enterprise metrics)"


def _docker_store_size(settings: Settings, db: str) -> tuple[int | None, int | None, str]:
    docker = shutil.which("docker")
    container = f"bookrag-{settings.neo4j.instance}-neo4j-1"  # docker/compose.yml's project and service
    if docker is None:
        return None, None, "n/a (no docker client)"
    proc = subprocess.run([docker, "exec", container, "du", "-sb", f"/data/databases/{db}", f"/data/transactions/{db}"],
                          capture_output=True, text=True, timeout=60, check=False)
    sizes = [int(line.split()[0]) for line in proc.stdout.splitlines() if line.split()[:1] and line.split()[0].isdigit()]
    if proc.returncode != 0 or len(sizes) != 2:
        return None, None, f"n/a (du in {container} failed: {proc.stderr.strip()[:200]})"
    return sizes[0], sizes[1], "docker"


async def _optional(db: Neo4jClient, query: str, **params: object) -> list[dict] | None:
    """A monitoring query that a managed service may refuse (Aura limits dbms.*): its rows, or ``None``."""
    try:
        return await db.write(query, **params)
    except Neo4jError as exc:
        log.warning("%s is not available on this server: %s", query, exc.message)
        return None


async def server_footprint(db: Neo4jClient, settings: Settings, *, checkpoint: bool = True) -> Footprint:
    """The heap in use, then the store on disk, the configured page cache and the database's counts, now.

    New data lives in the transaction logs until a checkpoint (every 15 minutes; ``db.checkpoint()`` is
    Enterprise-only), so a server this package manages is restarted first (``checkpoint``): a clean stop is a
    checkpoint."""
    heap = await _optional(db, "server/heap")
    old = await _optional(db, "server/old_generation")
    store, tx_logs, source = await asyncio.to_thread(store_size, settings, checkpoint=checkpoint)
    if store is None:  # an external server: Enterprise's metrics, where they are on
        metric = await _optional(db, "server/store_size_metrics", database=settings.neo4j.database)
        if metric and metric[0]["bytes"] is not None:
            store, source = int(metric[0]["bytes"]), "JMX metrics (Neo4j Enterprise)"
    config = await _optional(db, "server/memory_config")
    pagecache = next((parse_size(r["value"]) for r in config or [] if r["name"].endswith("pagecache.size")), None)
    (counts,) = await db.read("server/database_counts")
    return Footprint(store_bytes=store, tx_log_bytes=tx_logs, store_source=source,
                     heap_used_bytes=heap[0]["used"] if heap else None,
                     heap_committed_bytes=heap[0]["committed"] if heap else None,
                     heap_max_bytes=heap[0]["max"] if heap else None,
                     old_gen_used_bytes=old[0]["used"] if old and old[0]["pools"] else None,
                     pagecache_bytes=pagecache, nodes=counts["nodes"], relationships=counts["relationships"])


async def projection_memory(db: Neo4jClient, doc_keys: list[str]) -> ProjectionMemory | None:
    """Project the entity graph of ``doc_keys``, read its ``sizeInBytes`` and drop it (always); with GDS's
    estimate for a graph of the same counts. ``None`` when the documents have no entity (no knowledge graph)."""
    (counts,) = await db.read("gds/library_entity_counts", doc_keys=doc_keys)
    if not counts["entities"]:
        return None
    estimate = await db.write("gds/estimate_projection", nodes=counts["entities"], relationships=counts["edges"])
    name = graph_name()
    began = time.perf_counter()
    try:
        await db.write("gds/project_library_entities", graph_name=name, doc_keys=doc_keys)
        seconds = time.perf_counter() - began
        (held,) = await db.write("gds/graph_memory", graph_name=name)
    finally:
        await db.write("gds/drop_graph", graph_name=name)
    return ProjectionMemory(nodes=held["nodes"], relationships=held["relationships"], size_bytes=held["size_bytes"],
                            estimate_bytes=estimate[0]["bytes_max"] if estimate else None, seconds=round(seconds, 2))
