"""The command line's drawing of the core's progress events (:mod:`bookrag_neo4j.progress`): one rich bar a
stage (description, bar, done/total, elapsed time), removed when the stage ends.

    await rag.aindex(pdf, progress=RichProgress())
"""

from __future__ import annotations

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from ..progress import ProgressEvent


class RichProgress:
    """A progress callback that draws rich bars (on the terminal rich writes to)."""

    def __init__(self) -> None:
        self._bars: dict[str, tuple[Progress, TaskID]] = {}

    def __call__(self, event: ProgressEvent) -> None:
        if event.stage not in self._bars:
            bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                           transient=True)
            bar.start()
            self._bars[event.stage] = (bar, bar.add_task(event.stage, total=event.total))
        bar, task = self._bars[event.stage]
        bar.update(task, completed=event.done, total=event.total)
        if event.finished:
            bar.stop()
            del self._bars[event.stage]
