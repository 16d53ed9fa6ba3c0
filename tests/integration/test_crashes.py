"""The fault suite, part 2: crashes, two writers and a soak, on the real server.

* ``kill -9`` of the indexer at each stage (parse, tree write, block embeddings, entity extraction, graph write,
  the layout layer, the content graph; not entity resolution, which writes nothing), each run resuming what the
  killed one before it left: the document's statuses say what is partial, and after a re-run every label's and
  relationship type's count equals a clean index's; deleting it then leaves the database as it was before;
* ``kill -9`` of Neo4j during a graph write, restarted at once: the run carries on through the driver's retries
  or stops with ``Neo4jUnavailableError``; after a re-run, the same;
* two ``bookrag index`` processes on one document at once: the result equals a clean index;
* four clients asking a document whose layout layer is not built yet, and ``index --stage layout``, at once: it is
  built once, all get evidence;
* a soak: 4 concurrent clients ask 400 questions in all (``BOOKRAG_SOAK_QUESTIONS``: 1,000 for the figures in
  docs/reliability.md; BookRAG and the BM25, dense and hybrid baselines), with
  no error; heap after GC and p95 at start and end.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import os
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bookrag_neo4j.config import Settings
from bookrag_neo4j.db.client import Neo4jClient
from bookrag_neo4j.errors import DocumentNotFoundError, Neo4jUnavailableError
from bookrag_neo4j.keys import file_key
from bookrag_neo4j.llm import Models
from bookrag_neo4j.progress import ProgressEvent
from bookrag_neo4j.sdk import BookRAG
from bookrag_neo4j.server import connection_info, start_server
from bookrag_neo4j.server.local import LocalServer, find_java

from ..helpers.cli import BOOKRAG, cli_env
from ..helpers.counts import database_counts
from ..helpers.pdfs import tiny_pdf
from ..helpers.server import external


def index_until_killed(pdf: str, target: str, after: int, env: dict[str, str]) -> None:
    """In a child process: index the PDF and kill this process (SIGKILL, no clean-up of any kind) at the first
    progress event of the stage whose name starts with ``target`` once ``after`` units of it are done."""
    os.environ.update(env)

    def progress(event: ProgressEvent) -> None:
        if event.stage.startswith(target) and event.done >= after:
            os.kill(os.getpid(), signal.SIGKILL)

    BookRAG(use_llm=False).index(Path(pdf), progress=progress)
    sys.exit(3)  # the kill point never came


# Children fork from a server process that has imported the package and the models' libraries (and run no model,
# so no thread pool is forked): each child starts in a second, not after seconds of imports.
CHILDREN = multiprocessing.get_context("forkserver")
CHILDREN.set_forkserver_preload(["bookrag_neo4j.sdk", "sentence_transformers", "spacy"])


# (stage name prefix, units done, the layers the Document must show as partial after the kill; None: no Document).
# Not "resolving entities": it writes nothing (the entities are written once, in "writing the graph"), so a kill
# there leaves what a kill during extraction leaves.
KILL_POINTS: list[tuple[str, int, list[str] | None]] = [
    ("parsing", 1, None),
    ("writing acme-crash.pdf", 1, ["tree"]),
    ("embedding blocks", 1, ["embeddings"]),
    ("extracting entities", 1, ["graph"]),
    ("writing the graph", 1, ["graph"]),
    ("layout: embedding", 0, ["layout"]),
    ("content graph: embedding", 0, ["content_graph"]),
]


@pytest.fixture
async def rag(settings: Settings, offline_models: Models, schema) -> AsyncIterator[BookRAG]:
    client = BookRAG(settings.replace(llm_provider="none"), models=offline_models, use_llm=False)
    yield client
    await client.aclose()


@pytest.fixture
async def pdf(tmp_path: Path, rag: BookRAG) -> AsyncIterator[Path]:
    """The document the test crashes on; deleted after it, whatever happened."""
    path = tiny_pdf(tmp_path / "acme-crash.pdf", "Acme Crashworks", "Ada Quill", "Portugal", "gears")
    yield path
    with contextlib.suppress(DocumentNotFoundError):
        await rag.adelete(file_key(path))


_CLEAN: dict[str, dict[str, int]] = {}  # the counts without and with the crash document (its text is fixed)


async def _clean_counts(rag: BookRAG, pdf: Path) -> tuple[dict[str, int], dict[str, int], str]:
    """The database's counts without the document, and with a clean index of it (then deleted again); measured
    once a module while the database without it stays the same."""
    db = await rag.aclient()
    base = await database_counts(db, detailed=True)
    if _CLEAN.get("base") != base:
        report = await rag.aindex(pdf)
        _CLEAN.update(base=base, clean=await database_counts(db, detailed=True))
        await rag.adelete(report.doc_key)
        assert await database_counts(db, detailed=True) == base, "a delete left something behind"
    return base, _CLEAN["clean"], file_key(pdf)


async def test_killed_indexers_leave_true_statuses_and_a_rerun_equals_a_clean_index(
        rag: BookRAG, pdf: Path, settings: Settings) -> None:
    """One indexer after the other, each killed at the next stage: each resumes what the one before it left, and
    after each kill the statuses say what is partial; the last re-run equals a clean index. (A chain, not a
    clean start per stage: one index's work in all instead of one a stage, and each resumption is still run.)"""
    db = await rag.aclient()
    base, clean, key = await _clean_counts(rag, pdf)
    for target, after, partial in KILL_POINTS:
        child = CHILDREN.Process(target=index_until_killed, args=(str(pdf), target, after, cli_env(settings)))
        child.start()
        child.join(timeout=600)
        assert child.exitcode == -signal.SIGKILL, f"{target}: exit code {child.exitcode}"
        found = {d.key: d for d in await rag.adocuments()}.get(key)
        if partial is None:
            assert found is None, target
            continue
        assert found is not None and set(partial) <= set(found.partial), (target, found and found.partial)
        listed = found.listing()
        assert listed["status"] == "partial", (target, listed)
        if "graph" in partial:  # questions over it still run, and say that the graph is incomplete
            evidence = await rag.aretrieve("Who leads Acme Crashworks?", key)
            assert any("graph" in w and "incomplete" in w for w in evidence.warnings), (target, evidence.warnings)
            assert any(step.operator == "Scope" for step in evidence.trace)
            stats = await rag.astats(key)
            assert stats.partial is True and "graph" in stats.incomplete
    await rag.aindex(pdf)  # the re-run: resumes or rebuilds what is not complete
    assert not (await rag.adocument(key)).partial
    assert await database_counts(db, detailed=True) == clean
    await rag.adelete(key)
    assert await database_counts(db, detailed=True) == base


@pytest.mark.server_lifecycle
@pytest.mark.skipif(external(), reason="kills the managed server")
async def test_neo4j_killed_during_a_graph_write_then_a_rerun_equals_a_clean_index(
        rag: BookRAG, pdf: Path, settings: Settings) -> None:
    base, clean, key = await _clean_counts(rag, pdf)
    server = LocalServer(settings)
    killed = asyncio.Event()  # set from the progress callback, on the event loop

    def progress(event: ProgressEvent) -> None:
        if event.stage == "writing the graph" and event.done >= 1 and not killed.is_set():
            os.kill(server.pid() or 0, signal.SIGKILL)
            killed.set()

    async def restart() -> None:
        await killed.wait()
        await asyncio.to_thread(start_server, settings)

    async def read_while_down() -> list:  # a client's read sent while the server is down: retried until it is up
        async with Neo4jClient(connection_info(settings), retry_time=300) as db:
            await db.read_rows("library/list_documents", doc_keys=None)  # reached before the kill
            await killed.wait()
            return await db.read_rows("library/list_documents", doc_keys=None)

    restarting = asyncio.create_task(restart())
    reading = asyncio.create_task(read_while_down())
    try:
        await rag.aindex(pdf, progress=progress)  # the driver retries while the server comes back
    except Neo4jUnavailableError:
        pass  # it came back too late for the retries: the re-run below resumes
    finally:
        if not killed.is_set():
            restarting.cancel()
            reading.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await restarting
    assert killed.is_set()
    async with Neo4jClient(connection_info(settings)) as db:  # the same library as a read after the restart
        assert [d["key"] for d in await reading] == [d["key"] for d in await db.read_rows(
            "library/list_documents", doc_keys=None)]
    again = BookRAG(rag.settings, models=rag.models, use_llm=False)
    try:
        await again.aindex(pdf)
        db = await again.aclient()
        assert await database_counts(db, detailed=True) == clean
        await again.adelete(key)
        assert await database_counts(db, detailed=True) == base
    finally:
        await again.aclose()


async def test_two_indexers_on_one_document_give_a_clean_index(rag: BookRAG, pdf: Path, settings: Settings) -> None:
    db = await rag.aclient()
    base, clean, key = await _clean_counts(rag, pdf)
    env = cli_env(settings)
    both = [subprocess.Popen([BOOKRAG, "index", str(pdf), "--no-llm", "--json"], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=900) for p in both]
    assert [p.returncode for p in both] == [0, 0], outs
    assert not (await rag.adocument(key)).partial
    assert await database_counts(db, detailed=True) == clean
    await rag.adelete(key)
    assert await database_counts(db, detailed=True) == base


async def test_askers_arriving_together_build_a_missing_layout_layer_once(settings: Settings, offline_models: Models,
                                                                          schema, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from bookrag_neo4j.layout.build import LayoutBuilder

    built: list[str] = []
    original = LayoutBuilder.build

    async def counted(self: LayoutBuilder, doc_key: str, **kwargs: object) -> object:
        report = await original(self, doc_key, **kwargs)  # type: ignore[arg-type]
        built.append(report.status)
        return report

    monkeypatch.setattr(LayoutBuilder, "build", counted)
    pdf = tiny_pdf(tmp_path / "acme-together.pdf", "Acme Togetherworks", "Ida Quill", "Chile", "pumps")
    writer = BookRAG(settings.replace(llm_provider="none"), models=offline_models, use_llm=False)
    key = (await writer.aindex(pdf, layout=False)).doc_key
    clients = [BookRAG(writer.settings, models=offline_models, use_llm=False) for _ in range(4)]
    try:
        *found, report = await asyncio.gather(
            *(c.aretrieve("Who leads Acme Togetherworks?", key, method=m)
              for c, m in zip(clients, ("bm25", "dense", "hybrid", "bm25"), strict=True)),
            writer.abuild_layout(key))  # `bookrag index --stage layout` at the same moment
        assert all(evidence.nodes for evidence in found)
        assert built.count("built") == 1, built  # one built it; the others waited for it, none rebuilt it
        assert report.status in ("built", "unchanged")
        leases = await (await writer.aclient()).run_user_query(
            "MATCH (l:IndexLease) WHERE l.key STARTS WITH $key RETURN count(l) AS n", {"key": key})
        assert leases == [{"n": 0}]  # released
    finally:
        for c in clients:
            await c.aclose()
        await writer.adelete(key)
        await writer.aclose()


SOAK_QUESTIONS = int(os.environ.get("BOOKRAG_SOAK_QUESTIONS", "400"))  # `make test`'s; 1,000 for the long soak
SOAK_CLIENTS = 4
SOAK_METHODS = ("bookrag", "bm25", "dense", "hybrid")  # the layout layer they read is built by the first asker
TEMPLATES = ("Who leads {org}?", "What did {org} ship in {year}?", "Which bank does {org} work with?",
             "Where does {person} report?", "How many {thing} were shipped in {year}?", "Summarise the outlook.")


def _heap_after_gc(settings: Settings) -> int | None:
    """The server's used heap right after a full GC (``jcmd GC.run``), in bytes; None where it cannot run it."""
    pid = LocalServer(settings).pid()
    if external() or pid is None:
        return None
    subprocess.run([str(Path(find_java()).with_name("jcmd")), str(pid), "GC.run"], capture_output=True, timeout=60,
                   check=True)
    from neo4j import GraphDatabase

    conn = connection_info(settings)
    with GraphDatabase.driver(conn.uri, auth=(conn.username, conn.password)) as driver, driver.session() as s:
        row = s.run("CALL dbms.queryJmx('java.lang:type=Memory') YIELD attributes "
                    "RETURN attributes.HeapMemoryUsage.value.properties.used AS used").single()
    return int(row["used"])


async def test_soak_four_clients_ask_hundreds_of_questions(settings: Settings, offline_models: Models, schema,
                                                          tmp_path: Path) -> None:
    pdf = tiny_pdf(tmp_path / "acme-soak.pdf", "Acme Soakworks", "Ada Quill", "Norway", "valves")
    writer = BookRAG(settings.replace(llm_provider="none"), models=offline_models, use_llm=False)
    key = (await writer.aindex(pdf, layout=False)).doc_key
    heap_start = await asyncio.to_thread(_heap_after_gc, settings)
    clients = [BookRAG(writer.settings, models=offline_models, use_llm=False) for _ in range(SOAK_CLIENTS)]
    seconds: list[float] = []
    errors: list[str] = []

    async def client(number: int) -> None:
        for i in range(number, SOAK_QUESTIONS, SOAK_CLIENTS):
            question = TEMPLATES[i % len(TEMPLATES)].format(org="Acme Soakworks", person="Ada Quill", thing="valves",
                                                           year=2018 + i % 8)
            began = time.perf_counter()
            try:
                evidence = await clients[number].aretrieve(question, key, method=SOAK_METHODS[i % len(SOAK_METHODS)])
                assert evidence.nodes, question
            except Exception as exc:  # counted, not raised: the soak reports every error
                errors.append(f"{question}: {type(exc).__name__}: {exc}")
            seconds.append(time.perf_counter() - began)

    try:
        began = time.perf_counter()
        await asyncio.gather(*(client(n) for n in range(SOAK_CLIENTS)))
        wall = time.perf_counter() - began
    finally:
        for c in clients:
            await c.aclose()
        await writer.adelete(key)
        await writer.aclose()
    heap_end = await asyncio.to_thread(_heap_after_gc, settings)
    window = SOAK_QUESTIONS // 10

    def p95(values: list[float]) -> float:
        return statistics.quantiles(values, n=20)[-1] * 1000

    report = {"questions": len(seconds), "clients": SOAK_CLIENTS, "errors": len(errors), "wall_s": round(wall, 1),
              "p95_ms_first_tenth": round(p95(seconds[:window]), 1), "p95_ms_last_tenth": round(p95(seconds[-window:]), 1),
              "heap_after_gc_mb_start": heap_start and round(heap_start / 2 ** 20, 1),
              "heap_after_gc_mb_end": heap_end and round(heap_end / 2 ** 20, 1)}
    print("soak:", json.dumps(report))
    (Path(os.environ.get("BOOKRAG_SOAK_REPORT", tmp_path / "soak.json"))).write_text(json.dumps(report, indent=2))
    assert not errors, errors[:5]
    assert len(seconds) == SOAK_QUESTIONS
    assert report["p95_ms_last_tenth"] <= 3 * report["p95_ms_first_tenth"] + 50, report  # no slow-down as it runs
    if heap_start and heap_end:
        assert heap_end <= heap_start + 256 * 2 ** 20, report  # no leak on the server: within 256 MiB after GC
