"""Index many PDFs in parallel: worker processes, on one machine or many against one Neo4j, share them by leases.

    summary = index_many(settings, ["a.pdf", "b.pdf"], workers=2, options=IndexOptions(use_llm=False))
    summary.indexed, summary.failed, summary.documents   # aindex_many(..., on_event=print): the async twin

Each worker goes through the list from its own place in it: it claims a document's lease (keyed by the file's hash),
indexes it with :class:`~bookrag_neo4j.index.pipeline.Indexer` (an unchanged document costs a few queries), renews the
lease meanwhile and releases it. A document another live worker holds is tried again later; a dead worker's is taken
over once its lease expires (``BOOKRAG_INDEX_LEASE_SECONDS``), or at once on the same machine, and the pipeline rebuilds
what is not complete. Bad input fails its document alone. ``workers=1`` runs in this process, more spawn processes;
``force`` re-indexes each document once a command. Leases: :mod:`.leases`; see docs/indexing.md.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import queue
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..config import Settings
from ..db.client import Neo4jClient
from ..errors import BookRAGError, DocumentError, LeaseLostError, reason
from ..keys import file_key, stored_name, stored_text
from ..library.documents import get_document
from ..llm.factory import Models
from ..parsing.pymupdf_parser import check_file
from ..progress import ProgressCallback
from ..server import connection_info
from .leases import LeaseManager
from .pipeline import Indexer, IndexReport

log = logging.getLogger(__name__)

Status = Literal["indexed", "unchanged", "failed", "leased"]


class IndexOptions(BaseModel):
    """What each document gets: the sequential ``bookrag index``'s options (a misspelt one is an error)."""

    model_config = ConfigDict(extra="forbid")

    embed: bool = True
    knowledge_graph: bool = True
    layout: bool = True
    content_graph: bool | None = None  # default: with the layout layer
    force: bool = False
    replace: bool = False  # replace indexed documents of the same file name from other folders
    er_mode: Literal["gradient", "basic"] | None = None
    use_llm: bool = True


class DocumentOutcome(BaseModel):
    """One worker's attempt at one PDF. ``indexed``: a stage was built; ``unchanged``: all were complete;
    ``failed``: ``error`` says why; ``leased``: ``held_by`` another worker, to try again later."""

    path: str
    name: str
    status: Status
    worker: str = ""
    doc_key: str = ""
    pages: int = 0
    seconds: float = 0.0
    took_over_from: str | None = None  # the worker whose lease this one took over (expired, or its process gone)
    held_by: str | None = None
    error: str = ""
    report: IndexReport | None = None


class WorkerEvent(BaseModel):
    """What a worker reports: ``started`` a document (its lease claimed; ``took_over_from`` the worker whose expired
    or orphaned lease it took), ``finished`` an attempt (its ``outcome``), or ``exited`` (``detail``: why, when it
    was not the end of its list). ``worker`` counts from 1."""

    worker: int
    kind: Literal["started", "finished", "exited"]
    path: str = ""
    outcome: DocumentOutcome | None = None
    took_over_from: str | None = None
    detail: str = ""


class IndexSummary(BaseModel):
    """The run: one final outcome a PDF (in the order given) and the figures."""

    workers: int
    seconds: float
    documents: list[DocumentOutcome] = Field(default_factory=list)
    taken_over: int = 0  # documents claimed from a worker that died or stalled

    def _count(self, status: Status) -> int:
        return sum(d.status == status for d in self.documents)

    @property
    def indexed(self) -> int:
        return self._count("indexed")

    @property
    def unchanged(self) -> int:
        return self._count("unchanged")

    @property
    def failed(self) -> int:
        return self._count("failed")

    @property
    def pages(self) -> int:
        """Pages of the documents this run indexed."""
        return sum(d.pages for d in self.documents if d.status == "indexed")

    @property
    def pages_per_second(self) -> float:
        return self.pages / self.seconds if self.seconds > 0 else 0.0


def outcome_status(report: IndexReport) -> Status:
    """``indexed`` when any stage was built, ``unchanged`` when every stage asked for was complete."""
    stages = (report.graph, report.layout, report.content_graph)
    return "indexed" if report.status != "unchanged" or any(s and s.status == "built" for s in stages) else "unchanged"


class IndexWorker:
    """One worker: claims a document's lease, indexes it under the lease, releases it."""

    def __init__(self, db: Neo4jClient, settings: Settings, options: IndexOptions, *, models: Models | None = None,
                 progress: ProgressCallback | None = None, started_at: datetime | None = None) -> None:
        self.options = options
        self.db = db
        self.indexer = Indexer(db, settings, models, use_llm=options.use_llm, er_mode=options.er_mode,
                               progress=progress)
        self.leases = LeaseManager(db, ttl=settings.indexing.index_lease_seconds)
        self.started_at = started_at or datetime.now(UTC).replace(microsecond=0)

    async def prepare(self) -> None:
        """Load the embedder off the event loop before the first lease: the Indexer loads it on the loop, where it
        would hold up the lease's heartbeat for seconds."""
        await asyncio.to_thread(lambda: self.indexer.models.embedder.dimension)

    async def index_one(self, path: Path, *, on_start: Callable[[str | None], None] | None = None) -> DocumentOutcome:
        """Claim, index, release one PDF; never raises for the document's own errors (``failed`` outcome).
        ``on_start`` is called once the lease is claimed, with the worker taken over from (or ``None``)."""
        began = time.perf_counter()
        outcome = DocumentOutcome(path=str(path), name=stored_name(path), status="failed", worker=self.leases.owner)
        try:
            check_file(path)
            outcome.doc_key = await asyncio.to_thread(file_key, path)
            claim = await self.leases.claim(outcome.doc_key, name=outcome.name)
        except BookRAGError as exc:
            outcome.error = stored_text(str(exc))
            return outcome
        if not claim.claimed:
            outcome.status, outcome.held_by = "leased", claim.owner
            return outcome
        outcome.took_over_from = claim.previous if claim.takeover else None
        if on_start:
            on_start(outcome.took_over_from)
        try:
            report = await self.leases.hold(claim, self._index(path, outcome.doc_key))
            outcome.status, outcome.report, outcome.pages = outcome_status(report), report, report.pages
        except LeaseLostError as exc:  # another worker has it now: try again later (it will be done or leased)
            log.warning("%s", exc)
            outcome.status = "leased"
        except BookRAGError as exc:
            outcome.error = stored_text(str(exc))
        except Exception as exc:  # a bug or a server error: this document fails, the others go on
            log.info("indexing %s failed", outcome.name, exc_info=True)  # the outcome says why; -v: the traceback
            outcome.error = stored_text(reason(exc))
        finally:
            try:
                await self.leases.release(claim)
            except Exception as exc:  # Neo4j gone: the lease expires by itself
                log.warning("could not release the lease of %s: %s", outcome.name, exc)
        outcome.seconds = round(time.perf_counter() - began, 2)
        return outcome

    async def _index(self, path: Path, key: str) -> IndexReport:
        force = self.options.force and not await self._indexed_since_start(key)
        o = self.options
        return await self.indexer.index(path, embed=o.embed, knowledge_graph=o.knowledge_graph, layout=o.layout,
                                        content_graph=o.content_graph, force=force, replace=o.replace)

    async def _indexed_since_start(self, key: str) -> bool:
        """Whether another worker of this command (or a later one) already forced this document."""
        doc = await get_document(self.db, key)
        return bool(doc and doc.indexed_at and datetime.fromisoformat(doc.indexed_at) >= self.started_at)


def retry_interval(ttl: float) -> float:
    """Seconds a worker waits before looking again at documents other workers hold."""
    return min(5.0, ttl / 4)


def worker_order(paths: Sequence[Path], worker: int, workers: int) -> list[Path]:
    """The list as worker ``worker`` (0-based) of ``workers`` goes through it: from its own place, so that
    workers start on different documents."""
    start = worker * len(paths) // workers
    return [*paths[start:], *paths[:start]]


async def work_through(worker: IndexWorker, paths: Sequence[Path], *, number: int, emit: Callable[[WorkerEvent], None],
                       settled: Callable[[], set[str]] = set, retry: float = 5.0) -> None:
    """Worker ``number``'s loop: every PDF once to a final outcome; ones other workers hold are tried again
    every ``retry`` seconds; ``settled()`` names the ones a sibling finished (dropped)."""
    pending, told = list(paths), set()
    await worker.prepare()
    while pending:
        progressed = False
        for path in list(pending):
            if str(path) in settled():
                pending.remove(path)
                continue

            def started(previous: str | None, path: Path = path) -> None:
                emit(WorkerEvent(worker=number, kind="started", path=str(path), took_over_from=previous))

            outcome = await worker.index_one(path, on_start=started)
            if outcome.status == "leased":
                if path not in told:  # say it once, not at every look
                    told.add(path)
                    emit(WorkerEvent(worker=number, kind="finished", path=str(path), outcome=outcome))
                continue
            pending.remove(path)
            progressed = True
            emit(WorkerEvent(worker=number, kind="finished", path=str(path), outcome=outcome))
        if pending and not progressed:
            await asyncio.sleep(retry)


class _Tally:
    """The parent's view: the final outcome of each PDF (an indexed one wins over an unchanged or failed one)."""

    RANK = {"indexed": 3, "unchanged": 2, "failed": 1}

    def __init__(self, paths: Sequence[Path]) -> None:
        self.paths = [str(p) for p in paths]
        self.final: dict[str, DocumentOutcome] = {}
        self.takeovers = 0

    def add(self, event: WorkerEvent) -> bool:
        """Record an event; ``True`` when it settles its PDF."""
        self.takeovers += bool(event.took_over_from)
        o = event.outcome
        if event.kind != "finished" or o is None or o.status == "leased":
            return False
        old = self.final.get(o.path)
        if old is None or self.RANK[o.status] > self.RANK[old.status]:
            self.final[o.path] = o
        return old is None

    @property
    def complete(self) -> bool:
        return all(p in self.final for p in self.paths)

    def summary(self, workers: int, began: float, missing: str = "") -> IndexSummary:
        docs = [self.final.get(p) or DocumentOutcome(path=p, name=stored_name(p), status="failed", error=missing)
                for p in self.paths]
        return IndexSummary(workers=workers, seconds=round(time.perf_counter() - began, 2), documents=docs,
                            taken_over=self.takeovers)


async def aindex_many(settings: Settings, paths: Sequence[str | Path], *, workers: int = 1,
                      options: IndexOptions | None = None, on_event: Callable[[WorkerEvent], None] | None = None,
                      models: Models | None = None, progress: ProgressCallback | None = None) -> IndexSummary:
    """Index ``paths`` with ``workers`` workers under leases (``workers=1``: in this process, with ``models`` and
    the stage ``progress`` callback); ``on_event`` gets each :class:`WorkerEvent`."""
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    files = list(dict.fromkeys(Path(p) for p in paths))
    if not files:
        raise DocumentError("no PDF to index")
    options = options or IndexOptions()
    emit = on_event or (lambda event: None)
    tally, began = _Tally(files), time.perf_counter()
    started_at = datetime.now(UTC).replace(microsecond=0)

    def record(event: WorkerEvent) -> None:
        tally.add(event)
        emit(event)

    if workers == 1:
        async with Neo4jClient(connection_info(settings)) as db:
            worker = IndexWorker(db, settings, options, models=models, progress=progress, started_at=started_at)
            retry = retry_interval(settings.indexing.index_lease_seconds)
            await work_through(worker, files, number=1, emit=record, retry=retry)
        return tally.summary(1, began)
    missing = await _run_processes(settings, files, workers, options, started_at, tally, emit)
    return tally.summary(workers, began, missing)


def index_many(settings: Settings, paths: Sequence[str | Path], **kwargs: Any) -> IndexSummary:
    """The sync twin of :func:`aindex_many` (not inside a running event loop)."""
    return asyncio.run(aindex_many(settings, paths, **kwargs))


async def _run_processes(settings: Settings, files: list[Path], workers: int, options: IndexOptions,
                         started_at: datetime, tally: _Tally, emit: Callable[[WorkerEvent], None]) -> str:
    """Start the worker processes, relay their events, tell each one which PDFs its siblings settled, and wait
    for the end: every PDF settled, or no worker left (then the reason, for the PDFs left)."""
    ctx = multiprocessing.get_context("spawn")
    events = ctx.Queue()
    inboxes = [ctx.Queue() for _ in range(workers)]
    level = logging.getLogger().getEffectiveLevel()
    procs = [ctx.Process(target=_worker_process, name=f"bookrag-index-w{i + 1}", args=(
        settings, options, [str(f) for f in files], i, workers, started_at, events, inboxes[i], level))
        for i in range(workers)]
    for proc in procs:
        proc.start()
    reported: set[int] = set()
    try:
        while not tally.complete:
            try:
                event: WorkerEvent = await asyncio.to_thread(events.get, True, 0.5)
            except queue.Empty:
                for i, proc in enumerate(procs):
                    if proc.exitcode not in (None, 0) and i not in reported:
                        reported.add(i)
                        code = proc.exitcode or 0
                        emit(WorkerEvent(worker=i + 1, kind="exited", detail=f"killed by signal {-code}" if code < 0
                                         else f"exited with code {code}"))
                if all(proc.exitcode is not None for proc in procs) and events.empty():
                    return "no worker left to index it (see the workers' errors above)"
                continue
            if event.kind == "exited":
                reported.add(event.worker - 1)
            if tally.add(event):
                for inbox in inboxes:
                    inbox.put(event.path)
            emit(event)
        return ""
    finally:
        await asyncio.to_thread(_wind_down, procs, events, inboxes)


def _wind_down(procs: list[Any], events: Any, inboxes: list[Any], timeout: float = 30.0) -> None:
    """Let the workers finish (reading what they still send, so none blocks on a full pipe), then stop any left."""
    deadline = time.monotonic() + timeout
    while any(proc.is_alive() for proc in procs) and time.monotonic() < deadline:
        try:
            events.get(timeout=0.2)
        except queue.Empty:
            pass
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
        proc.join()
    for inbox in inboxes:  # what a worker that had ended was sent is not waited for
        inbox.cancel_join_thread()


def _worker_process(settings: Settings, options: IndexOptions, paths: list[str], index: int, workers: int,
                    started_at: datetime, events: Any, inbox: Any, level: int) -> None:
    """A worker process's body: its share of the cores (torch, the table finder), logging tagged with its number,
    its loop."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    share = max(1, cores // workers)
    os.environ.setdefault("OMP_NUM_THREADS", str(share))  # before torch is imported
    if settings.indexing.parse_workers == 0:  # "one table-finder process a core": a core of this worker's share
        settings = settings.replace(parse_workers=share)
    logging.basicConfig(level=level, format=f"[w{index + 1}] %(levelname)s %(name)s: %(message)s")
    logging.getLogger("neo4j").setLevel(max(level, logging.ERROR))
    settled: set[str] = set()

    def drain() -> set[str]:
        while True:
            try:
                settled.add(inbox.get_nowait())
            except queue.Empty:
                return settled

    async def serve() -> None:
        async with Neo4jClient(connection_info(settings)) as db:
            worker = IndexWorker(db, settings, options, started_at=started_at)
            await work_through(worker, worker_order([Path(p) for p in paths], index, workers), number=index + 1,
                               emit=events.put, settled=drain, retry=retry_interval(settings.indexing.index_lease_seconds))

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:  # Ctrl-C reaches every worker: its lease is released, no traceback
        raise SystemExit(130) from None
    except Exception as exc:  # e.g. Neo4j not reachable: the parent says so and goes on with the other workers
        events.put(WorkerEvent(worker=index + 1, kind="exited", detail=f"stopped: {type(exc).__name__}: {exc}"))
        raise SystemExit(1) from exc
