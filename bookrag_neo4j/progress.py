"""Progress of the long stages (parsing, writing, embedding, extracting, resolving), reported through a callback:
the core prints nothing, a front end draws it (the CLI draws rich progress bars).

    def show(event: ProgressEvent) -> None:
        print(event.stage, event.done, event.total, "done" if event.finished else "")

    await Indexer(db, settings, progress=show).index(pdf)

Each stage sends one event when it starts (``done == 0``), one after each step, and a last one with
``finished`` set. Stages run one after another; a stage's name is what a progress bar shows. Events of the
parsing stage come from a worker thread.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True)
class ProgressEvent:
    stage: str  # e.g. "writing R-intro.pdf", "embedding blocks"
    done: int  # units done so far
    total: int | None = None  # units in all; None while unknown
    finished: bool = False


ProgressCallback = Callable[[ProgressEvent], None]


class Stage:
    """One running stage: counts what is done and reports it (to nobody when there is no callback)."""

    def __init__(self, progress: ProgressCallback | None, name: str, total: int | None) -> None:
        self._progress = progress
        self.name = name
        self.total = total
        self.done = 0

    def _send(self, finished: bool = False) -> None:
        if self._progress is not None:
            self._progress(ProgressEvent(self.name, self.done, self.total, finished))

    def advance(self, n: int = 1) -> None:
        self.done += n
        self._send()

    def update(self, done: int, total: int | None = None) -> None:
        """Set the count (and the total, when it becomes known)."""
        self.done = done
        self.total = total if total is not None else self.total
        self._send()


@contextmanager
def stage(progress: ProgressCallback | None, name: str, total: int | None = None) -> Iterator[Stage]:
    """Report a stage from its start to its end (also when it fails)."""
    running = Stage(progress, name, total)
    running._send()
    try:
        yield running
    finally:
        running._send(finished=True)


class Laps:
    """Seconds of a stage's steps, one lap each, for its report::

        laps = Laps()
        ...; laps("clear")
        ...; laps("write")
        laps.seconds, laps.total        # {"clear": 0.05, "write": 2.5}, seconds since the start
    """

    def __init__(self) -> None:
        self.began = self._clock = time.perf_counter()
        self.seconds: dict[str, float] = {}

    def __call__(self, name: str) -> None:
        now = time.perf_counter()
        self.seconds[name] = round(now - self._clock, 3)
        self._clock = now

    @property
    def total(self) -> float:
        return round(time.perf_counter() - self.began, 2)
