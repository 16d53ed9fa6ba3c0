"""``bookrag index PDF...`` under leases (:mod:`bookrag_neo4j.index.workers`): in this process (the default, one
worker, with the usual per-document report and progress bars) or with ``--workers N`` in N processes (a line a
worker event), then a summary line. Safe next to other ``bookrag index`` commands on this or other machines.

    bookrag index --workers 4 --no-llm ../shared/benchmarks/*/pdfs/*.pdf
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape

from ..index.workers import IndexOptions, IndexSummary, WorkerEvent
from ..keys import stored_name
from .common import console

if TYPE_CHECKING:
    from ..index.pipeline import IndexReport
    from ..progress import ProgressCallback
    from ..sdk import BookRAG


def event_line(event: WorkerEvent, workers: int) -> str | None:
    """The line an event prints (``None``: nothing to say). One worker: only what its report does not say."""
    name, tag = escape(stored_name(event.path)), escape(f"[w{event.worker}] ") if workers > 1 else ""
    o = event.outcome
    if event.kind == "exited":
        return f"[red]{tag}worker {event.worker} {event.detail}[/]"
    if event.kind == "started":
        if event.took_over_from:
            return f"[yellow]{tag}{name}: taking over from {event.took_over_from} (its lease expired)[/]"
        return f"{tag}{name}: indexing" if workers > 1 else None
    if o is None:
        return None
    if o.status == "leased":
        held = f"held by {o.held_by}" if o.held_by else "its lease was lost to another worker"
        return f"[yellow]{tag}{name}: {held}; trying again later[/]"
    if o.status == "failed":
        error = escape(o.error)
        return f"[red]{tag}failed:[/] {error}" if name in error else f"[red]{tag}failed[/] {name}: {error}"
    if workers == 1:
        return None  # the full report follows
    rate = f" ({o.pages / o.seconds:.1f} pages/s)" if o.status == "indexed" and o.seconds else ""
    return f"{tag}[green]{o.status}[/] {name}: {o.pages} pages in {o.seconds:.1f}s{rate}"


def summary_line(summary: IndexSummary) -> str:
    return (f"{len(summary.documents)} documents, {summary.workers} worker{'s' * (summary.workers > 1)}: "
            f"{summary.indexed} indexed, {summary.unchanged} unchanged, {summary.failed} failed, {summary.taken_over} "
            f"taken over; {summary.pages} pages in {summary.seconds:.1f}s ({summary.pages_per_second:.2f} pages/s "
            f"overall)")


async def index_pdfs(rag: BookRAG, pdfs: list[Path], *, workers: int, options: IndexOptions, quiet: bool,
                     progress: ProgressCallback | None, print_report: Callable[[IndexReport], None]) -> IndexSummary:
    """Index ``pdfs`` with ``workers`` workers, printing a line an event (not when ``quiet``, for ``--json``) and
    each report (one worker) and the summary (more than one document or worker)."""

    def show(event: WorkerEvent) -> None:
        o = event.outcome
        if quiet and event.kind != "exited" and not (o and o.status == "failed"):  # --json: only the errors
            return
        if (line := event_line(event, workers)) is not None:
            console.print(line, soft_wrap=True)  # one line, however long the file's name (as the error line)
        if workers == 1 and o is not None and o.report is not None and not quiet:
            print_report(o.report)

    summary = await rag.aindex_many(pdfs, workers=workers, options=options, on_event=show, progress=progress)
    if not quiet and (workers > 1 or len(pdfs) > 1):
        console.print(summary_line(summary), soft_wrap=True)
    return summary
