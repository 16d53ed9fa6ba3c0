"""Background indexing for the web app: one job an upload, run one at a time on a worker thread with its own
event loop and SDK object (the page stays responsive while a document is parsed), its progress per stage kept
for the page to poll.

    jobs = IndexJobs(settings, models, uploads=Path("uploads"))
    job = jobs.submit(Path("uploads/ab12/R-data.pdf"))
    jobs.get(job.id).stages          # [StageView(name="parsing R-data.pdf", done=12, total=41, finished=False), ...]
    jobs.get(job.id).note            # "already indexed as R-data-2019.pdf": the same content, under its first name

An uploaded file that no document uses once its job ends (its indexing failed, or its content was indexed before
under another name) is removed; while Neo4j cannot say whether one uses it, it is kept.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import Settings
from ..errors import BookRAGError
from ..keys import local_path, stored_name, stored_text
from ..llm.factory import Models
from ..progress import ProgressEvent
from .uploads import forget_upload

if TYPE_CHECKING:
    from ..index.pipeline import IndexReport
    from ..sdk import BookRAG

log = logging.getLogger(__name__)


class JobState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


@dataclass
class StageView:
    """One stage of an indexing job as the page shows it."""

    name: str
    done: int = 0
    total: int | None = None
    finished: bool = False


@dataclass
class IndexJob:
    """An uploaded PDF being indexed: its state, stages in the order they ran, and the outcome."""

    id: str
    name: str
    path: Path
    state: JobState = JobState.QUEUED
    stages: list[StageView] = field(default_factory=list)
    doc_key: str | None = None
    error: str | None = None
    note: str | None = None  # e.g. the content was already indexed, under another name
    started: float = field(default_factory=time.time)
    seconds: float | None = None

    def on_progress(self, event: ProgressEvent) -> None:
        """The SDK's progress callback (called from the worker thread)."""
        stage = next((s for s in self.stages if s.name == event.stage), None)
        if stage is None:
            stage = StageView(event.stage)
            self.stages.append(stage)
        stage.done, stage.total, stage.finished = event.done, event.total, event.finished


class IndexJobs:
    """The upload queue: jobs run one after another (indexing is CPU-bound; the questions go on meanwhile)."""

    def __init__(self, settings: Settings, models: Models, *, use_llm: bool = True, keep: int = 100,
                 uploads: Path | None = None) -> None:
        """``uploads``: the folder of uploaded files, which a job removes when no document uses them (``None``:
        files are never removed)."""
        self.settings, self.models, self.use_llm, self.uploads = settings, models, use_llm, uploads
        self._jobs: dict[str, IndexJob] = {}
        self._lock = threading.Lock()
        self._keep = keep
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bookrag-index")

    def submit(self, path: Path, name: str | None = None) -> IndexJob:
        """Index ``path`` in the background; ``name``: as the page shows it (default: the file's)."""
        job = IndexJob(id=uuid.uuid4().hex[:12], name=name or path.name, path=path)
        with self._lock:
            self._jobs[job.id] = job
            for old in list(self._jobs)[:-self._keep]:  # the newest jobs are kept for the page
                del self._jobs[old]
        self._worker.submit(self._run, job)
        return job

    def get(self, job_id: str) -> IndexJob | None:
        return self._jobs.get(job_id)

    def all(self) -> list[IndexJob]:
        return list(reversed(self._jobs.values()))

    def close(self) -> None:
        self._worker.shutdown(wait=False, cancel_futures=True)

    def _run(self, job: IndexJob) -> None:
        from ..sdk import BookRAG

        job.state, began = JobState.RUNNING, time.perf_counter()

        async def index() -> IndexReport:
            async with BookRAG(self.settings, models=self.models, use_llm=self.use_llm) as rag:
                try:
                    return await rag.aindex(job.path, progress=job.on_progress)
                finally:
                    await self._drop_unused(rag, job)

        try:
            report = asyncio.run(index())
            job.doc_key, job.note = report.doc_key, _note(report, job.path)
            job.state = JobState.DONE
        except BookRAGError as exc:
            job.error, job.state = str(exc), JobState.FAILED
        except Exception as exc:  # the page says what failed; the log keeps the traceback
            log.exception("indexing %s failed", job.name)
            job.error, job.state = f"indexing failed: {type(exc).__name__}: {exc}", JobState.FAILED
        job.seconds = time.perf_counter() - began

    async def _drop_unused(self, rag: BookRAG, job: IndexJob) -> None:
        """Remove the job's uploaded file unless a document uses it or a queued job will index it; kept (and
        logged) when Neo4j cannot say."""
        if self.uploads is None or not job.path.is_relative_to(self.uploads):
            return
        try:
            await (await rag.aclient()).reach()  # without the driver's retries: Neo4j gone fails in a second
            used = any(d.path and local_path(d.path) == job.path.absolute() for d in await rag.adocuments())
        except Exception as exc:  # noqa: BLE001 - whatever it was, the file stays
            log.warning("kept the upload %s: could not tell whether a document uses it (%s: %s)",
                        stored_text(str(job.path)), type(exc).__name__, exc)
            return
        if used or any(j.path == job.path and j.state is JobState.QUEUED for j in self.all()):
            return
        forget_upload(job.path, self.uploads)
        log.info("removed the upload %s: no document uses it", stored_text(str(job.path)))


def _note(report: IndexReport, path: Path) -> str | None:
    """What the page says besides "done": the content was indexed before (under which name, if another)."""
    if report.status != "unchanged":
        return None
    return "already indexed" if report.name == stored_name(path) else f"already indexed as {report.name}"
