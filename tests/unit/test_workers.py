"""The parts of parallel indexing that need no server: worker ids, intervals, each worker's order, the worker
loop (retries, siblings' settled documents), the parent's tally, the CLI's lines and option checks."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from bookrag_neo4j.cli import app
from bookrag_neo4j.cli.indexing import event_line, summary_line
from bookrag_neo4j.cli.library import check_workers
from bookrag_neo4j.errors import DocumentError, Neo4jUnavailableError
from bookrag_neo4j.index.leases import heartbeat_interval, owner_is_gone, worker_id
from bookrag_neo4j.index.pipeline import IndexReport, side_by_side
from bookrag_neo4j.index.workers import (
    DocumentOutcome,
    WorkerEvent,
    _Tally,
    aindex_many,
    outcome_status,
    retry_interval,
    work_through,
    worker_order,
)
from bookrag_neo4j.kg.build import GraphReport


def outcome(path: str, status: str, **kwargs) -> DocumentOutcome:
    return DocumentOutcome(path=path, name=Path(path).name, status=status, **kwargs)


def test_worker_ids_name_the_host_and_process_and_differ() -> None:
    a, b = worker_id(), worker_id()
    assert re.fullmatch(r".+:\d+:[0-9a-f]{6}", a) and a != b
    assert a.rsplit(":", 2)[1] == b.rsplit(":", 2)[1]  # same process


def test_only_a_gone_process_of_this_machine_counts_as_gone() -> None:
    machine = worker_id().rsplit(":", 2)[0]
    finished = subprocess.Popen(["true"])
    assert finished.wait() == 0
    assert owner_is_gone(f"{machine}:{finished.pid}:abc")
    assert not owner_is_gone(f"{machine}:{os.getpid()}:abc") and not owner_is_gone(f"{machine}:{os.getppid()}:abc")
    assert not owner_is_gone(f"elsewhere/1:{finished.pid}:abc")  # another machine, or another pid namespace
    assert not owner_is_gone(f"{machine.split('/')[0]}/0:{finished.pid}:abc") or machine.endswith("/0")
    assert not any(owner_is_gone(o) for o in ("dead:1:abc", "", "no-colons", f"{machine}:x:abc"))


def test_intervals_follow_the_lease_time_to_live() -> None:
    assert heartbeat_interval(120) == 40 and heartbeat_interval(3) == 1
    assert retry_interval(120) == 5 and retry_interval(2) == 0.5


def test_each_worker_starts_at_its_own_place_in_the_list() -> None:
    paths = [Path(f"{i}.pdf") for i in range(4)]
    assert worker_order(paths, 0, 2) == paths
    assert worker_order(paths, 1, 2) == [paths[2], paths[3], paths[0], paths[1]]
    assert [p.name for p in worker_order(paths, 2, 3)] == ["2.pdf", "3.pdf", "0.pdf", "1.pdf"]
    assert all(sorted(worker_order(paths, i, 3)) == paths for i in range(3))


def test_a_document_counts_as_indexed_when_any_stage_was_built() -> None:
    report = IndexReport(doc_key="k", name="a.pdf", status="unchanged")
    assert outcome_status(report) == "unchanged"
    report.graph = GraphReport(doc_key="k", status="built")  # a takeover: the tree was complete, the graph not
    assert outcome_status(report) == "indexed"
    assert outcome_status(IndexReport(doc_key="k", name="a.pdf", status="replaced")) == "indexed"


class ScriptedWorker:
    """A worker whose attempts are scripted: each path's outcomes in turn (its last one repeats)."""

    def __init__(self, script: dict[str, list[str]]) -> None:
        self.script = script
        self.attempts: list[str] = []
        self.prepared = False

    async def prepare(self) -> None:
        self.prepared = True

    async def index_one(self, path: Path, *, on_start=None) -> DocumentOutcome:
        self.attempts.append(path.name)
        steps = self.script[path.name]
        status = steps.pop(0) if len(steps) > 1 else steps[0]
        if status != "leased" and on_start:
            on_start("dead:1:abc" if status == "indexed" and path.name == "b.pdf" else None)
        return outcome(str(path), status, held_by="other:2:def" if status == "leased" else None)


async def test_the_worker_loop_retries_held_documents_and_drops_settled_ones() -> None:
    worker = ScriptedWorker({"a.pdf": ["indexed"], "b.pdf": ["leased", "leased", "indexed"], "c.pdf": ["failed"],
                             "d.pdf": ["leased"]})
    events: list[WorkerEvent] = []
    settled: set[str] = set()

    def emit(event: WorkerEvent) -> None:
        events.append(event)
        if event.outcome and event.outcome.status == "indexed" and event.path == "b.pdf":
            settled.add("d.pdf")  # a sibling finished d.pdf meanwhile

    await work_through(worker, [Path(p) for p in ("a.pdf", "b.pdf", "c.pdf", "d.pdf")], number=2, emit=emit,
                       settled=lambda: settled, retry=0)
    assert worker.prepared
    assert worker.attempts == ["a.pdf", "b.pdf", "c.pdf", "d.pdf", "b.pdf", "d.pdf", "b.pdf"]
    finished = [(e.path, e.outcome.status) for e in events if e.kind == "finished" and e.outcome]
    assert finished == [("a.pdf", "indexed"), ("b.pdf", "leased"), ("c.pdf", "failed"), ("d.pdf", "leased"),
                        ("b.pdf", "indexed")]  # "leased" said once a document
    assert [e.took_over_from for e in events if e.kind == "started"] == [None, None, "dead:1:abc"]
    assert {e.worker for e in events} == {2}


def test_the_tally_keeps_one_final_outcome_a_document() -> None:
    tally = _Tally([Path("a.pdf"), Path("b.pdf"), Path("c.pdf")])
    assert not tally.add(WorkerEvent(worker=1, kind="finished", path="a.pdf", outcome=outcome("a.pdf", "leased")))
    assert tally.add(WorkerEvent(worker=1, kind="finished", path="a.pdf", outcome=outcome("a.pdf", "failed")))
    assert not tally.add(WorkerEvent(worker=2, kind="finished", path="a.pdf",
                                     outcome=outcome("a.pdf", "indexed", pages=10)))  # wins, already settled
    tally.add(WorkerEvent(worker=2, kind="started", path="b.pdf", took_over_from="dead:1:abc"))
    tally.add(WorkerEvent(worker=2, kind="finished", path="b.pdf", outcome=outcome("b.pdf", "unchanged", pages=5)))
    assert not tally.complete
    summary = tally.summary(2, began=0.0, missing="no worker left")
    assert [d.status for d in summary.documents] == ["indexed", "unchanged", "failed"]
    assert summary.documents[2].error == "no worker left"
    assert (summary.indexed, summary.unchanged, summary.failed, summary.taken_over, summary.pages) == (1, 1, 1, 1, 10)
    assert 0 < summary.pages_per_second < 10 / summary.seconds + 1e-9
    assert summary_line(summary).startswith("3 documents, 2 workers: 1 indexed, 1 unchanged, 1 failed, 1 taken over;")


def test_event_lines() -> None:
    started = WorkerEvent(worker=2, kind="started", path="/x/a.pdf")
    assert event_line(started, 2) == r"\[w2] a.pdf: indexing" and event_line(started, 1) is None
    takeover = WorkerEvent(worker=1, kind="started", path="/x/a.pdf", took_over_from="h:1:abc")
    assert "taking over from h:1:abc" in event_line(takeover, 1)
    held = WorkerEvent(worker=1, kind="finished", path="/x/a.pdf", outcome=outcome("/x/a.pdf", "leased",
                                                                                   held_by="h:1:abc"))
    assert "held by h:1:abc; trying again later" in event_line(held, 2)
    failed = WorkerEvent(worker=1, kind="finished", path="/x/a.pdf",
                         outcome=outcome("/x/a.pdf", "failed", error="a.pdf is not a readable PDF [x]"))
    assert event_line(failed, 1) == r"[red]failed:[/] a.pdf is not a readable PDF \[x]"
    done = WorkerEvent(worker=1, kind="finished", path="/x/a.pdf",
                       outcome=outcome("/x/a.pdf", "indexed", pages=12, seconds=4.0))
    assert event_line(done, 1) is None and event_line(done, 2).endswith("a.pdf: 12 pages in 4.0s (3.0 pages/s)")
    assert "killed by signal 9" in event_line(WorkerEvent(worker=3, kind="exited", detail="killed by signal 9"), 3)


def test_workers_need_pdfs() -> None:
    check_workers(1, leased=False, mineru_output=True)
    check_workers(4, leased=True, mineru_output=False)
    with pytest.raises(typer.BadParameter, match="--workers indexes PDF files"):
        check_workers(2, leased=False, mineru_output=False)
    with pytest.raises(typer.BadParameter):
        check_workers(2, leased=True, mineru_output=True)


def test_cli_refuses_bad_worker_options() -> None:
    runner = CliRunner()
    zero = runner.invoke(app, ["index", "--workers", "0", "a.pdf"])
    assert zero.exit_code == 2 and "--workers" in zero.output
    layer = runner.invoke(app, ["index", "--workers", "2", "--stage", "graph", "a.pdf"])
    assert layer.exit_code == 2 and "--workers indexes PDF files" in " ".join(layer.output.split())


async def test_index_many_checks_its_arguments_before_connecting(tmp_path: Path) -> None:
    from bookrag_neo4j.config import Settings

    settings = Settings(neo4j_uri="bolt://localhost:1", neo4j_password="x")  # nothing listens there
    with pytest.raises(ValueError, match="at least 1"):
        await aindex_many(settings, [tmp_path / "a.pdf"], workers=0)
    with pytest.raises(DocumentError, match="no PDF"):
        await aindex_many(settings, [])


async def test_side_by_side_raises_the_failure_itself_and_cancels_the_other() -> None:
    """Embeddings and the graph run side by side; Neo4j going away in one must reach the caller as the package's
    own error (what the SDK documents and callers catch), not as an ExceptionGroup, and stop the other."""
    cancelled = asyncio.Event()

    async def slow() -> int:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return 1

    async def fails() -> int:
        await asyncio.sleep(0)
        try:
            raise ConnectionRefusedError("17687")
        except ConnectionRefusedError as exc:
            raise Neo4jUnavailableError("Neo4j is not reachable") from exc

    with pytest.raises(Neo4jUnavailableError) as caught:
        await side_by_side(slow(), fails())
    assert cancelled.is_set()
    assert isinstance(caught.value.__cause__, ConnectionRefusedError)  # its cause is kept
    assert await side_by_side(asyncio.sleep(0, "a"), asyncio.sleep(0, 2)) == ("a", 2)
