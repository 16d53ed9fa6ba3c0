"""The files of a ``bookrag bench scale`` run, as typed models: what ``scale.json`` holds for an ``--ingest``
run (:class:`ScaleRun`, written by :mod:`.bench_scale`) and for a ``--clone`` run (:class:`CurveRun`, written by
:mod:`.scale_curve`), and the one reader and writer of those files. The reports (:mod:`.scale_projection`,
:mod:`.scale_curve_report`) read these models, so no module of the runs and their reports imports another's.

    run = read_run(Path("scale-out"))              # ScaleRun
    write_run_files(out, run, report_markdown)     # scale.json (atomically) and report.md
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar

from pydantic import BaseModel, Field

from ..errors import ScaleRunError
from .scale_probe import ProjectionMemory

if TYPE_CHECKING:
    from .bench_query import QueryBench

Stages = Literal["tree", "graph", "all"]
Outcome = Literal["indexed", "partial", "reused", "failed"]
RUN_FILE, REPORT_FILE = "scale.json", "report.md"


class PlannedDocument(BaseModel):
    path: str
    key: str
    name: str
    pages: int


class DocumentOutcome(BaseModel):
    """One document of the run: ``indexed`` (from nothing, timed), ``partial`` (finished after an interrupted
    run), ``reused`` (already complete: a no-op) or ``failed`` (rejected; left out of the library)."""

    name: str
    key: str
    pages: int = 0
    outcome: Outcome
    seconds: float = 0.0
    stage_seconds: dict[str, float] = Field(default_factory=dict)  # the index report's, e.g. tree.parse, graph.extract
    error: str | None = None


class LibrarySize(BaseModel):
    """A set of documents' size (``cypher/library/library_size.cypher``)."""

    pages: int
    tree_nodes: int
    entities: int


class Latency(BaseModel):
    p50_ms: float
    p95_ms: float
    with_models_p50_ms: float
    with_models_p95_ms: float
    runs: int
    mean_evidence_nodes: float


class ScaleRow(BaseModel):
    """The library at one size."""

    documents: int
    pages: int
    tree_nodes: int
    entities: int
    nodes: int  # the whole database's
    relationships: int
    new_documents: int  # added since the previous size: indexed + partial + reused
    indexed_documents: int
    partial_documents: int
    reused_documents: int
    indexed_pages: int  # pages of the ``indexed`` ones: the numerator of ingest_pages_per_s
    ingest_seconds: float
    ingest_pages_per_s: float | None
    cumulative_pages_per_s: float | None  # every row's indexed pages over their seconds, up to this size
    store_bytes: int | None
    tx_log_bytes: int | None
    store_source: str
    heap_used_bytes: int | None
    heap_committed_bytes: int | None
    heap_max_bytes: int | None
    old_gen_used_bytes: int | None
    pagecache_bytes: int | None
    projection: ProjectionMemory | None
    latency: Latency | None
    run: int
    measured_at: str
    outcomes: list[DocumentOutcome] = Field(default_factory=list)


class ScaleConfig(BaseModel):
    stages: Stages
    questions: list[str]
    method: str
    repeat: int
    llm: bool
    checkpoint: bool = True  # restart a managed server before reading its store size (scale_probe.store_size)


class RunRecord(BaseModel):
    """One invocation of the command on a run folder (a resumed run adds one)."""

    run: int
    started_at: str
    warm_up_seconds: float = 0.0  # loading the models before anything is timed
    finished_at: str | None = None
    last_size: int | None = None


class ScaleRun(BaseModel):
    """What ``scale.json`` holds: the options, the planned documents, a row per size, the invocations."""

    config: ScaleConfig
    sizes: list[int]
    documents: list[PlannedDocument]
    rows: list[ScaleRow] = Field(default_factory=list)
    runs: list[RunRecord] = Field(default_factory=list)


class ColdRun(BaseModel):
    """One question asked by a new process."""

    question: str
    seconds: float
    max_rss_kb: int
    evidence: int  # nodes in its answer


class Cold(BaseModel):
    """The questions of one scope asked cold: the median wall time, the largest resident set."""

    median_s: float
    max_s: float
    max_rss_kb: int
    runs: list[ColdRun]


class CurveRow(BaseModel):
    """The library at one size."""

    documents: int
    clones: int
    clones_made: int  # in this run, for this size (the rest were found complete)
    clone_seconds: float
    pages: int
    tree_nodes: int
    entities: int
    nodes: int  # the whole database's
    relationships: int
    cold_document: Cold | None
    cold_library: Cold | None
    warm_document: Latency | None
    warm_library: Latency | None
    client_rss_bytes: int | None  # this process, after the warm questions (None: no /proc)
    client_peak_rss_bytes: int
    heap_used_bytes: int | None
    heap_committed_bytes: int | None
    heap_max_bytes: int | None
    old_gen_used_bytes: int | None
    pagecache_bytes: int | None  # configured
    store_bytes: int | None
    tx_log_bytes: int | None
    gds_projections: int  # document projections in the GDS catalog, and the heap they hold
    gds_projection_bytes: int
    run: int
    measured_at: str


class CurveConfig(BaseModel):
    questions: list[str]
    method: str
    repeat: int
    llm: bool
    cold: bool
    sources: list[str]  # the keys of the documents cloned, in order; the first is the one-document scope


class CurveRun(BaseModel):
    """What ``scale.json`` holds for a clone run (``kind`` tells it from an ``--ingest`` run's)."""

    kind: Literal["clone"] = "clone"
    config: CurveConfig
    source_names: list[str] = Field(default_factory=list)
    sizes: list[int]
    rows: list[CurveRow] = Field(default_factory=list)
    runs: list[RunRecord] = Field(default_factory=list)


def latency_of(report: QueryBench) -> Latency:
    """:func:`~bookrag_neo4j.eval.bench_query.bench_query`'s report as a :class:`Latency`."""
    without, with_models = report.without_model_inference, report.with_model_inference
    return Latency(p50_ms=without.p50_ms, p95_ms=without.p95_ms, with_models_p50_ms=with_models.p50_ms,
                   with_models_p95_ms=with_models.p95_ms, runs=report.runs, mean_evidence_nodes=report.mean_evidence_nodes)


R = TypeVar("R", bound=BaseModel)


def recorded_run(out: Path, kind: type[R], config: BaseModel, *, what: str) -> R | None:
    """The run of ``kind`` recorded in ``out`` (None when there is none), or :class:`ScaleRunError` when the file
    is not one or was recorded with another ``config`` (the options and, for clones, their sources)."""
    path = out / RUN_FILE
    if not path.is_file():
        return None
    try:
        run = kind.model_validate_json(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ScaleRunError(f"{path} is not a {what} run file ({exc}); use another --out") from exc
    recorded = run.config  # type: ignore[attr-defined]  # ScaleRun and CurveRun both have one
    if recorded != config:
        raise ScaleRunError(f"{path} was recorded with other options ({recorded.model_dump()}); use another --out, "
                            "or the same options and documents")
    return run


def write_run_files(out: Path, run: BaseModel, report: str) -> None:
    """A scale run's files in ``out``: ``scale.json`` (replaced atomically: a killed run leaves the last one whole)
    and ``report.md``."""
    out.mkdir(parents=True, exist_ok=True)
    scratch = out / f".{RUN_FILE}.tmp"
    scratch.write_text(run.model_dump_json(indent=2) + "\n", encoding="utf-8")
    scratch.replace(out / RUN_FILE)
    (out / REPORT_FILE).write_text(report, encoding="utf-8")


def read_run(path: Path) -> ScaleRun:
    """A ``scale.json`` (or the folder holding one); :class:`ScaleRunError` when it is missing or unreadable."""
    path = path / RUN_FILE if path.is_dir() else path
    try:
        return ScaleRun.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        raise ScaleRunError(f"{path}: not a bench scale run file ({exc})") from exc
