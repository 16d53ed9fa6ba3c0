"""Background indexing for the web app: one job an upload, run one at a time on a worker thread with its own
event loop and SDK object (the page stays responsive while a document is parsed), its progress per stage kept
for the page to poll.

    jobs = IndexJobs(settings, models)
    job = jobs.submit(Path("uploads/ab12/R-data.pdf"))
    jobs.get(job.id).stages          # [StageView(name="parsing R-data.pdf", done=12, total=41, finished=False), ...]
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

from ..config import Settings
from ..errors import BookRAGError
from ..llm.factory import Models
from ..progress import ProgressEvent

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

    def __init__(self, settings: Settings, models: Models, *, use_llm: bool = True, keep: int = 100) -> None:
        self.settings, self.models, self.use_llm = settings, models, use_llm
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

        async def index() -> str:
            async with BookRAG(self.settings, models=self.models, use_llm=self.use_llm) as rag:
                return (await rag.aindex(job.path, progress=job.on_progress)).doc_key

        try:
            job.doc_key = asyncio.run(index())
            job.state = JobState.DONE
        except BookRAGError as exc:
            job.error, job.state = str(exc), JobState.FAILED
        except Exception as exc:  # the page says what failed; the log keeps the traceback
            log.exception("indexing %s failed", job.name)
            job.error, job.state = f"indexing failed: {type(exc).__name__}: {exc}", JobState.FAILED
        job.seconds = time.perf_counter() - began
