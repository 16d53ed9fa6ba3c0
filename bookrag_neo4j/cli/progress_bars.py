"""The command line's drawing of the core's progress events (:mod:`bookrag_neo4j.progress`): one rich bar a
stage (description, bar, done/total, elapsed time), removed when the stage ends. The bars share stderr with the
command's messages; where stderr is not a terminal (a log file, a pipe) none is drawn, and stdout stays the
command's output alone.

    await rag.aindex(pdf, progress=RichProgress())
"""

from __future__ import annotations

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from ..progress import ProgressEvent
from .common import console


class RichProgress:
    """A progress callback that draws rich bars on the command's console (stderr), when it is a terminal."""

    def __init__(self) -> None:
        self._bars: dict[str, tuple[Progress, TaskID]] = {}

    def __call__(self, event: ProgressEvent) -> None:
        if event.stage not in self._bars:
            bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                           console=console, transient=True, disable=not console.is_terminal)
            bar.start()
            self._bars[event.stage] = (bar, bar.add_task(event.stage, total=event.total))
        bar, task = self._bars[event.stage]
        bar.update(task, completed=event.done, total=event.total)
        if event.finished:
            bar.stop()
            del self._bars[event.stage]
