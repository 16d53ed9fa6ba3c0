"""``bookrag bench scale``: the library measured as it grows, document by document.

    plan = plan_documents(paths, order="pages")                  # de-duplicated by content key, fewest pages first
    run = await bench_scale_ingest(indexer, retriever, settings, plan, out=out, sizes=[1, 5, 10], config=config)
    rows = await bench_scale(retriever, questions, sizes=[1, 5, 20])  # no ingest: over the indexed library

:func:`bench_scale_ingest` indexes the documents in order with the usual :class:`~bookrag_neo4j.index.pipeline.Indexer`
(``stages``: ``tree``, ``graph``, ``all``) and at each of ``sizes`` records a :class:`ScaleRow`: ingest pages/s, the
server's footprint (:mod:`.scale_probe`), retrieval p50/p95 with and without model inference
(:func:`~.bench_query.bench_query`) and counts. Run again with the same ``out``, it resumes at the next size: complete
documents are reused, half-done ones finished; only those indexed from nothing count in pages/s.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from ..config import Settings
from ..db.client import Neo4jClient
from ..errors import DocumentError, ScaleRunError
from ..index.pipeline import Indexer, IndexReport
from ..keys import file_key, local_path
from ..library.documents import get_document
from ..methods import Retriever
from ..retrieval import subtrees
from .bench_query import Percentiles, bench_query
from .scale_probe import Footprint, ProjectionMemory, projection_memory, server_footprint
from .scale_projection import markdown_rows
from .scale_run import (
    RUN_FILE,
    DocumentOutcome,
    Latency,
    LibrarySize,
    Outcome,
    PlannedDocument,
    RunRecord,
    ScaleConfig,
    ScaleRow,
    ScaleRun,
    Stages,
    latency_of,
    recorded_run,
    write_run_files,
)

log = logging.getLogger(__name__)

DEFAULT_QUESTIONS = ("What are the main topics of this document?",
                     "What figures does the main table report?",
                     "Who is responsible for what the document describes?")


def run_settings(settings: Settings, out: Path) -> Settings:
    """The indexer's settings for a run in ``out``: its own cache folder (``out/cache``, where the graph stage keeps
    its extraction store), so that no document is timed on extractions cached by an earlier run elsewhere; a
    resumed run reuses it, and the documents it could serve are the ``partial`` ones, not timed anyway. (The
    LLM's response cache belongs to the models: with an LLM, ``BOOKRAG_LLM_CACHE=false`` times real calls.)"""
    return settings.replace(cache_dir=out / "cache")


def plan_documents(paths: list[Path], *, order: Literal["given", "pages"] = "given") -> list[PlannedDocument]:
    """The PDFs to grow the library with: de-duplicated by content key (the first path wins), in the given order
    or by page count (fewest first, then name). Two different files with one name are an error: the library
    keeps one document per file name."""
    import pymupdf

    planned: dict[str, PlannedDocument] = {}
    for path in paths:
        if not path.is_file():
            raise DocumentError(f"{path}: no such file")
        key = file_key(path)
        if key in planned:
            continue
        try:
            with pymupdf.open(path) as pdf:
                pages = pdf.page_count
        except (RuntimeError, ValueError) as exc:
            raise DocumentError(f"{path}: not a PDF PyMuPDF can open ({exc})") from exc
        planned[key] = PlannedDocument(path=str(path.absolute()), key=key, name=path.name, pages=pages)
    names: dict[str, str] = {}
    for doc in planned.values():
        if doc.name in names:
            raise DocumentError(f"{names[doc.name]} and {doc.path} are different files named {doc.name}: the library "
                                "keeps one document per file name (indexing one replaces the other); rename one")
        names[doc.name] = doc.path
    docs = list(planned.values())
    return sorted(docs, key=lambda d: (d.pages, d.name)) if order == "pages" else docs


def assemble_row(*, size: int, batch: list[DocumentOutcome], previous: list[ScaleRow], counts: LibrarySize,
                 footprint: Footprint, projection: ProjectionMemory | None, latency: Latency | None,
                 run: int) -> ScaleRow:
    """The row for the library at ``size`` documents from what was indexed since the previous size (``batch``),
    the rows before it, the library's ``counts`` (pages, tree_nodes, entities) and the server's figures."""
    timed = [o for o in batch if o.outcome == "indexed"]
    pages, seconds = sum(o.pages for o in timed), sum(o.seconds for o in timed)
    all_pages = pages + sum(r.indexed_pages for r in previous)
    all_seconds = seconds + sum(r.ingest_seconds for r in previous)
    return ScaleRow(
        documents=size, pages=counts.pages, tree_nodes=counts.tree_nodes, entities=counts.entities,
        nodes=footprint.nodes, relationships=footprint.relationships,
        new_documents=sum(o.outcome != "failed" for o in batch), indexed_documents=len(timed),
        partial_documents=sum(o.outcome == "partial" for o in batch),
        reused_documents=sum(o.outcome == "reused" for o in batch),
        indexed_pages=pages, ingest_seconds=round(seconds, 2),
        ingest_pages_per_s=round(pages / seconds, 2) if seconds > 0 else None,
        cumulative_pages_per_s=round(all_pages / all_seconds, 2) if all_seconds > 0 else None,
        store_bytes=footprint.store_bytes, tx_log_bytes=footprint.tx_log_bytes, store_source=footprint.store_source,
        heap_used_bytes=footprint.heap_used_bytes, heap_committed_bytes=footprint.heap_committed_bytes,
        heap_max_bytes=footprint.heap_max_bytes, old_gen_used_bytes=footprint.old_gen_used_bytes,
        pagecache_bytes=footprint.pagecache_bytes,
        projection=projection, latency=latency, run=run,
        measured_at=datetime.now(UTC).isoformat(timespec="seconds"), outcomes=batch)


def load_run(out: Path, config: ScaleConfig, sizes: list[int], plan: list[PlannedDocument]) -> ScaleRun:
    """The run recorded in ``out`` (checked against this command's options and documents), or a new one."""
    run = recorded_run(out, ScaleRun, config, what="bench scale")
    if run is None:
        return ScaleRun(config=config, sizes=sizes, documents=plan)
    done = [o.key for r in run.rows for o in r.outcomes]
    if [d.key for d in plan[:len(done)]] != done:
        raise ScaleRunError(f"{out / RUN_FILE} recorded other documents first ({len(done)} so far): give the same "
                            "documents in the same order, or use another --out")
    return run.model_copy(update={"sizes": sizes, "documents": plan})


def write_run(out: Path, run: ScaleRun) -> None:
    """``scale.json`` (replaced atomically) and ``report.md``."""
    write_run_files(out, run, markdown_rows(run))


async def warm_up(indexer: Indexer, stages: Stages) -> float:
    """Load the models indexing uses (the embedder; spaCy unless the extractor is the LLM's) so that the first
    document's time is indexing, not loading. Seconds it took."""
    began = time.perf_counter()
    await indexer.models.embedder.embed(["warm-up"])
    if stages != "tree" and indexer.settings.kg.kg_extractor != "llm":
        from ..text.nlp import load_spacy

        await asyncio.to_thread(load_spacy, None)  # the extractor's call: the same cached pipeline
    return round(time.perf_counter() - began, 2)


async def index_one(indexer: Indexer, doc: PlannedDocument, stages: Stages) -> DocumentOutcome:
    """Index ``doc`` up to ``stages``, timed, and say whether that built it, finished it or found it complete."""
    before = await get_document(indexer.db, doc.key)
    began = time.perf_counter()
    try:
        report = await indexer.index(local_path(doc.path), knowledge_graph=stages != "tree", layout=stages == "all")
    except DocumentError as exc:
        return DocumentOutcome(name=doc.name, key=doc.key, outcome="failed", error=str(exc))
    seconds = time.perf_counter() - began
    outcome: Outcome = "reused" if not _built(report) else "indexed" if before is None else "partial"
    stage_seconds = {f"tree.{k}": v for k, v in report.seconds.items()}
    for layer, part in (("graph", report.graph), ("layout", report.layout), ("content_graph", report.content_graph)):
        stage_seconds |= {f"{layer}.{k}": round(v, 3) for k, v in (part.seconds if part else {}).items()}
    return DocumentOutcome(name=doc.name, key=doc.key, pages=report.pages, outcome=outcome, seconds=round(seconds, 2),
                           stage_seconds=stage_seconds)


def _built(report: IndexReport) -> bool:
    layers = (report.graph, report.layout, report.content_graph)
    return report.status != "unchanged" or any(layer is not None and layer.status == "built" for layer in layers)


async def measure(db: Neo4jClient, retriever: Retriever, settings: Settings, keys: list[str], config: ScaleConfig,
                  ) -> tuple[LibrarySize, Footprint, ProjectionMemory | None, Latency | None]:
    """The library ``keys`` now: its counts, the server's footprint, the projection's memory, retrieval latency."""
    (counts,) = await db.read_as(LibrarySize, "library/library_size", doc_keys=keys)
    # before the projection and the questions touch the heap
    footprint = await server_footprint(db, settings, checkpoint=config.checkpoint)
    projection = await projection_memory(db, keys) if config.stages != "tree" else None
    latency = None
    if config.questions:
        latency = latency_of(await bench_query(retriever, keys, config.questions, repeat=config.repeat,
                                               method=config.method))
    return counts, footprint, projection, latency


async def bench_scale_ingest(indexer: Indexer, retriever: Retriever, settings: Settings, plan: list[PlannedDocument],
                             *, out: Path, sizes: list[int], config: ScaleConfig,
                             progress: Callable[[str], None] | None = None) -> ScaleRun:
    """Grow the library with ``plan`` and measure it at each of ``sizes`` (see the module docstring)."""
    say = progress or log.info
    run = load_run(out, config, sorted(set(sizes)), plan)
    number = len(run.runs) + 1
    run.runs.append(RunRecord(run=number, started_at=datetime.now(UTC).isoformat(timespec="seconds"),
                              warm_up_seconds=await warm_up(indexer, config.stages)))
    recorded = [o for r in run.rows for o in r.outcomes]
    library = []
    for doc, before in zip(plan, recorded, strict=False):  # recorded rows: their documents must still be there
        if before.outcome != "failed":
            again = await index_one(indexer, doc, config.stages)
            if again.outcome != "reused":
                say(f"{doc.name} was recorded but was {again.outcome} again: the earlier rows' library changed since")
            library.append(doc.key)
    if recorded:
        say(f"resuming after {len(library)} documents ({len(run.rows)} sizes recorded)")
    position = len(recorded)
    for size in run.sizes:
        if size <= len(library):
            continue
        batch: list[DocumentOutcome] = []
        while len(library) < size and position < len(plan):
            doc = plan[position]
            position += 1
            outcome = await index_one(indexer, doc, config.stages)
            batch.append(outcome)
            if outcome.outcome != "failed":
                library.append(doc.key)
            say(f"[{len(library)}/{size}] {doc.name}: {outcome.outcome}, {outcome.pages} pages in {outcome.seconds} s"
                + (f" ({outcome.error})" if outcome.error else ""))
        if len(library) < size:  # the documents ran out: measure what there is, if anything was added
            say(f"only {len(library)} documents could be indexed, not {size}")
            if not any(o.outcome != "failed" for o in batch):
                break
            size = len(library)
        say(f"measuring the library at {size} documents")
        counts, footprint, projection, latency = await measure(indexer.db, retriever, settings, library, config)
        row = assemble_row(size=size, batch=batch, previous=run.rows, counts=counts, footprint=footprint,
                           projection=projection, latency=latency, run=number)
        run.rows.append(row)
        run.runs[-1].finished_at, run.runs[-1].last_size = row.measured_at, size
        write_run(out, run)
        say(f"size {size}: {row.pages} pages, store {_mib(row.store_bytes)} MiB, heap {_mib(row.heap_used_bytes)} MiB, "
            f"projection {_mib(row.projection.size_bytes if row.projection else None)} MiB, "
            f"p50 {row.latency.p50_ms if row.latency else 'n/a'} ms")
    run.runs[-1].finished_at = datetime.now(UTC).isoformat(timespec="seconds")
    write_run(out, run)
    return run


def _mib(value: int | None) -> str:
    return "n/a" if value is None else f"{value / 2**20:,.1f}"


class LibraryLatency(LibrarySize):
    """``bookrag bench scale`` (without ``--ingest``): the first ``documents`` of the library, and a question's latency."""

    documents: int
    without_model_inference: Percentiles
    with_model_inference: Percentiles
    mean_evidence_nodes: float


async def bench_scale(retriever: Retriever, questions: list[str], *, sizes: list[int],
                      repeat: int = 3, method: str = "bookrag") -> list[LibraryLatency]:
    """Without ``--ingest``: the same questions asked of the library already indexed: the first N complete
    documents with a knowledge graph (by name), for each N of ``sizes``; latency and library size."""
    library = [d for d in await subtrees.scope_documents(retriever.db, None) if d.graph_version]
    rows = []
    for size in sizes:
        if size > len(library):
            break
        keys = [d.key for d in library[:size]]
        (counts,) = await retriever.db.read_as(LibrarySize, "library/library_size", doc_keys=keys)
        report = await bench_query(retriever, keys, questions, repeat=repeat, method=method)
        rows.append(LibraryLatency(documents=size, **counts.model_dump(),
                                   without_model_inference=report.without_model_inference,
                                   with_model_inference=report.with_model_inference,
                                   mean_evidence_nodes=report.mean_evidence_nodes))
    return rows
