"""``bookrag bench scale --clone``: the query path as the library grows to hundreds of documents, built by cloning.

    run = await bench_scale_clone(db, retriever, settings, out=Path("curve"), sizes=[10, 50, 200, 500],
                                  config=config, cold=ColdProcess())
    run.rows[-1].cold_library.max_rss_kb, run.rows[-1].warm_library.p50_ms   # curve/scale.json, scale.png

At each size the library is grown with clones (:mod:`.scale_clone`), not by indexing, then measured: **cold**, a new
``bookrag retrieve --json`` process a question, of one document and of the library (wall time, max resident set);
**warm**, :func:`~bookrag_neo4j.eval.bench_query.bench_query` in this process (p50/p95, with and without model
inference); **memory**, this process's, the server's heap and page cache (:func:`~.scale_probe.server_footprint`) and
the GDS projections'. Run again with the same ``out``, it resumes at the next size (report: :mod:`.scale_curve_report`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import resource
import statistics
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ..config import Settings
from ..db.client import Neo4jClient
from ..db.projections import held_projections
from ..errors import ScaleRunError
from ..library.documents import get_document
from ..methods import Retriever
from .bench_query import bench_query
from .scale_clone import CloneReport, clone_sources, grow_library, list_clones
from .scale_curve_report import curve_markdown, plot_curve
from .scale_probe import server_footprint
from .scale_run import (
    Cold,
    ColdRun,
    CurveConfig,
    CurveRow,
    CurveRun,
    Latency,
    LibrarySize,
    RunRecord,
    latency_of,
    recorded_run,
    write_run_files,
)

log = logging.getLogger(__name__)

PLOT_FILE = "scale.png"


@dataclass(frozen=True)
class ColdProcess:
    """How a cold question runs: ``command`` (the ``bookrag`` script beside this Python) ``retrieve QUESTION
    --json``, with ``extra`` arguments (``--instance``), in ``env`` (None: this process's)."""

    command: tuple[str, ...] = (str(Path(sys.executable).parent / "bookrag"),)
    extra: tuple[str, ...] = ()
    env: dict[str, str] | None = field(default=None, repr=False)
    timeout: float = 1800.0

    def argv(self, question: str, doc: str | None, *, llm: bool, method: str) -> list[str]:
        return [*self.command, "retrieve", question, "--json", "--method", method, *(() if llm else ("--no-llm",)),
                *(("--doc", doc) if doc else ()), *self.extra]


# The cold process is started by this small one, which times it and reads its rusage: a child of the bench's
# own (large) process would report at least the bench's resident set, as Linux carries the high-water mark of
# the memory a process had before exec into its ru_maxrss (as /usr/bin/time does, the figure is from a small
# parent). Writes "<seconds> <max RSS in KiB>" to the file named by its first argument.
_TIMER = """
import os, sys, time
began = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
ended = time.perf_counter()
with open(sys.argv[1], "w") as out:
    out.write(f"{ended - began} {usage.ru_maxrss}")
sys.exit(os.waitstatus_to_exitcode(status))
"""


async def cold_question(process: ColdProcess, question: str, doc: str | None, *, llm: bool, method: str) -> ColdRun:
    """Ask ``question`` (of ``doc``, or the library) in a new process: wall time, max RSS, evidence count;
    :class:`ScaleRunError` when it fails."""
    with tempfile.TemporaryDirectory(prefix="bookrag-cold-") as scratch:
        figures = Path(scratch) / "figures"
        argv = [sys.executable, "-c", _TIMER, str(figures), *process.argv(question, doc, llm=llm, method=method)]
        proc = await asyncio.create_subprocess_exec(*argv, stdout=asyncio.subprocess.PIPE,
                                                    stderr=asyncio.subprocess.PIPE, env=process.env)
        try:
            stdout, stderr = await asyncio.wait_for(proc.communicate(), process.timeout)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            raise ScaleRunError(f"a cold question ran over {process.timeout:.0f} s: {question!r}") from None
        measured = figures.read_text() if figures.is_file() else ""
    if proc.returncode != 0 or not measured:
        raise ScaleRunError(f"bookrag retrieve exited {proc.returncode} on {question!r}: "
                            f"{stderr.decode(errors='replace').strip()[-600:]}")
    seconds, max_rss_kb = measured.split()
    try:
        evidence = len(json.loads(stdout).get("evidence") or [])
    except ValueError as exc:
        raise ScaleRunError(f"bookrag retrieve --json printed no JSON ({exc}): {stdout[:300]!r}") from exc
    return ColdRun(question=question, seconds=round(float(seconds), 3), max_rss_kb=int(max_rss_kb),
                   evidence=evidence)


async def cold_scope(process: ColdProcess, questions: list[str], doc: str | None, config: CurveConfig) -> Cold:
    runs = [await cold_question(process, q, doc, llm=config.llm, method=config.method) for q in questions]
    seconds = [r.seconds for r in runs]
    return Cold(median_s=round(statistics.median(seconds), 3), max_s=max(seconds),
                max_rss_kb=max(r.max_rss_kb for r in runs), runs=runs)


def _proc_status(field: str) -> int | None:
    """A size in this process's ``/proc/self/status`` (``VmRSS``, ``VmHWM``), in bytes; None where there is none."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def rss_bytes() -> int | None:
    """This process's resident set now; None where there is no ``/proc``."""
    return _proc_status("VmRSS")


def peak_rss_bytes() -> int:
    """This process's largest resident set so far (``VmHWM``, else ``ru_maxrss``: KiB on Linux, bytes on macOS)."""
    peak = _proc_status("VmHWM")
    if peak is not None:
        return peak
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def load_curve(out: Path, config: CurveConfig, sizes: list[int]) -> CurveRun:
    """The clone run recorded in ``out`` (checked against these options and sources), or a new one."""
    run = recorded_run(out, CurveRun, config, what="bench scale --clone")
    return CurveRun(config=config, sizes=sizes) if run is None else run.model_copy(update={"sizes": sizes})


def write_curve(out: Path, run: CurveRun) -> None:
    """``scale.json`` (replaced atomically), ``report.md`` and ``scale.png``."""

    write_run_files(out, run, curve_markdown(run))
    if run.rows:
        plot_curve(run, out / PLOT_FILE)


async def measure_size(db: Neo4jClient, retriever: Retriever, settings: Settings, config: CurveConfig,
                       cold: ColdProcess | None, made: list[CloneReport], *, size: int, run: int) -> CurveRow:
    """The library as it is now, at ``size`` documents (see the module docstring)."""
    questions, one = config.questions, config.sources[0]
    cold_document = await cold_scope(cold, questions, one, config) if cold else None
    cold_library = await cold_scope(cold, questions, None, config) if cold else None
    warm_document = latency_of(await bench_query(retriever, [one], questions, repeat=config.repeat,
                                                 method=config.method))
    warm_library = latency_of(await bench_query(retriever, None, questions, repeat=config.repeat,
                                                method=config.method))
    client_rss, client_peak = rss_bytes(), peak_rss_bytes()
    footprint = await server_footprint(db, settings, checkpoint=False)
    projections = await held_projections(db)
    keys = [*config.sources, *(c.key for c in await list_clones(db))]
    (counts,) = await db.read_as(LibrarySize, "library/library_size", doc_keys=keys)
    fresh = [c for c in made if not c.reused]
    return CurveRow(
        documents=size, clones=len(keys) - len(config.sources), clones_made=len(fresh),
        clone_seconds=round(sum(c.seconds for c in fresh), 2), pages=counts.pages,
        tree_nodes=counts.tree_nodes, entities=counts.entities, nodes=footprint.nodes,
        relationships=footprint.relationships, cold_document=cold_document, cold_library=cold_library,
        warm_document=warm_document, warm_library=warm_library, client_rss_bytes=client_rss,
        client_peak_rss_bytes=client_peak, heap_used_bytes=footprint.heap_used_bytes,
        heap_committed_bytes=footprint.heap_committed_bytes, heap_max_bytes=footprint.heap_max_bytes,
        old_gen_used_bytes=footprint.old_gen_used_bytes, pagecache_bytes=footprint.pagecache_bytes,
        store_bytes=footprint.store_bytes, tx_log_bytes=footprint.tx_log_bytes, gds_projections=len(projections),
        gds_projection_bytes=sum(projections.values()), run=run,
        measured_at=datetime.now(UTC).isoformat(timespec="seconds"))


async def curve_config(db: Neo4jClient, *, questions: list[str], method: str, repeat: int, llm: bool,
                       cold: bool) -> tuple[CurveConfig, list[str]]:
    """The run's options with the library's source documents (every complete indexed document that is not a
    clone, by name), and their names."""
    sources = await clone_sources(db)
    if not sources:
        raise ScaleRunError("no complete indexed document to clone: index one first (bookrag index)")
    return (CurveConfig(questions=questions, method=method, repeat=repeat, llm=llm, cold=cold,
                        sources=[d.key for d in sources]), [d.name for d in sources])


async def bench_scale_clone(db: Neo4jClient, retriever: Retriever, settings: Settings, *, out: Path,
                            sizes: list[int], config: CurveConfig, cold: ColdProcess | None,
                            progress: Callable[[str], None] | None = None) -> CurveRun:
    """Grow the library by clones to each of ``sizes`` and measure it there (see the module docstring)."""
    say = progress or log.info
    found = [await get_document(db, key) for key in config.sources]
    if missing := [key for key, doc in zip(config.sources, found, strict=True) if doc is None or doc.status != "complete"]:
        raise ScaleRunError(f"the run's source documents {missing} are not (completely) indexed here; use another --out")
    sources = [doc for doc in found if doc is not None]
    if min(sizes) < len(sources):
        raise ScaleRunError(f"the library holds {len(sources)} indexed documents: sizes start there, not at "
                            f"{min(sizes)}")
    run = load_curve(out, config, sorted(set(sizes)))
    run.source_names = [d.name for d in sources]
    number = len(run.runs) + 1
    run.runs.append(RunRecord(run=number, started_at=datetime.now(UTC).isoformat(timespec="seconds")))
    done = {r.documents for r in run.rows}
    if done:
        say(f"resuming: sizes {sorted(done)} recorded")
    for size in run.sizes:
        if size in done:
            continue
        say(f"growing the library to {size} documents ({len(sources)} indexed, {size - len(sources)} clones)")
        made = await grow_library(db, sources, documents=size, progress=say)
        say(f"measuring the library at {size} documents")
        row = await measure_size(db, retriever, settings, config, cold, made, size=size, run=number)
        run.rows = sorted([*run.rows, row], key=lambda r: r.documents)
        run.runs[-1].finished_at, run.runs[-1].last_size = row.measured_at, size
        write_curve(out, run)
        say(_summary(row))
    run.runs[-1].finished_at = datetime.now(UTC).isoformat(timespec="seconds")
    write_curve(out, run)
    return run


def _summary(row: CurveRow) -> str:
    def cold(c: Cold | None) -> str:
        return "n/a" if c is None else f"{c.median_s:.2f} s, {c.max_rss_kb / 1024:,.0f} MiB"

    def warm(w: Latency | None) -> str:
        return "n/a" if w is None else f"p50 {w.p50_ms:,.0f} ms"

    return (f"size {row.documents}: cold one document {cold(row.cold_document)}, library {cold(row.cold_library)}; "
            f"warm one document {warm(row.warm_document)}, library {warm(row.warm_library)}; heap "
            f"{(row.heap_used_bytes or 0) / 2**20:,.0f} MiB")
