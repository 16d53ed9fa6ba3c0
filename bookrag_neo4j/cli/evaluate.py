"""The measuring commands: ``bookrag eval`` (BookRAG, ablations and baselines on a benchmark) and ``bookrag bench
models | ingest | graph | query | scale | headings`` (the speed and memory figures the README reports; ``scale``
lives in :mod:`.scale`)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer

from .common import (
    InstanceOpt,
    JsonOpt,
    MethodOpt,
    NoLlmPlanOpt,
    PdfPathsArg,
    RepeatOpt,
    console,
    library,
    pdf_paths,
    print_json,
    render,
    run_with_db,
    settings_for,
)
from .scale import bench_scale_cmd

if TYPE_CHECKING:
    from ..db.client import Neo4jClient
    from ..eval.bench_graph import GraphBench
    from ..tree.detect import Detector

PARTIAL_EXIT = 3  # bookrag eval: some questions were misses because a document or a method failed

bench_app = typer.Typer(help="Benchmarks (speed and memory) that the README reports.", no_args_is_help=True)


def eval_cmd(
    benchmark: Annotated[Path, typer.Argument(help="A benchmark folder: questions.jsonl and pdfs/.")],
    mode: Annotated[str, typer.Option(help="retrieval (no answers) or qa (answers scored too).")] = "retrieval",
    methods: Annotated[str, typer.Option(
        help="Comma-separated names of `bookrag methods` (BookRAG, its ablations, the baselines).")
    ] = "bookrag,bm25,dense,layout,graphranker",
    limit: Annotated[int | None, typer.Option(help="The first N questions only.")] = None,
    scope: Annotated[str, typer.Option(
        help="document (each question asked of its own document) or library (of every indexed document, none "
             "named: only the own document's pages count, and the report says how often it comes first).")
    ] = "document",
    no_llm: Annotated[bool, typer.Option("--no-llm", help="The whole pipeline in its LLM-free mode.")] = False,
    only_indexed: Annotated[bool, typer.Option(
        "--only-indexed", help="Index no new document: questions about documents not indexed with a graph are "
                               "misses (listed in report.md).")
    ] = False,
    judge: Annotated[bool, typer.Option(
        "--judge", help="qa mode: also ask the LLM judge whether each answer matches the gold one.")] = False,
    out: Annotated[Path, typer.Option(help="Report folder.")] = Path("eval-out"),
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Evaluate BookRAG, ablations and baselines on a benchmark: page recall (all, @5, @10), QA scores, cost;
    writes questions.jsonl, summary.json, report.md and plots to --out. Every question is scored: those of a
    document that failed count as misses, and the exit code is 3 (a partial run)."""
    from rich.progress import Progress

    from ..eval.benchmark import load_benchmark
    from ..eval.report import report_body, write_report
    from ..eval.summary import summarise

    if mode not in ("retrieval", "qa"):
        raise typer.BadParameter("--mode is retrieval or qa")
    if scope not in ("document", "library"):
        raise typer.BadParameter("--scope is document or library")
    bench = load_benchmark(benchmark, limit=limit)
    chosen = [m.strip() for m in methods.split(",") if m.strip()]
    try:
        with Progress(console=console, transient=True) as bar:
            task = bar.add_task(f"{bench.name}: questions", total=len(bench.questions))
            rows = library(instance, use_llm=not no_llm).evaluate(
                bench, methods=chosen, mode=mode, scope=scope, only_indexed=only_indexed,
                judge=judge, progress=lambda _: bar.advance(task))
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    summary = summarise(rows, benchmark=bench.name, mode=mode, scope=scope, llm=not no_llm)
    paths = write_report(out, rows, summary)
    if as_json:
        print_json(summary.record())
    else:
        console.print(report_body(summary), markup=False)
        console.print("wrote " + ", ".join(str(p) for p in paths.values()))
    if summary.partial:
        raise typer.Exit(PARTIAL_EXIT)


def _plot(path: Path | None, labels: list[str], values: list[float], *, ylabel: str, title: str) -> None:
    """``--plot PATH``: a bar chart of ``values``; nothing without one."""
    if path is not None:
        from ..eval.report import bar_chart

        bar_chart(path, labels, values, ylabel=ylabel, title=title)


@bench_app.command("models")
def bench_models_cmd(
    text: Annotated[Path, typer.Option(help="A real text to cut into ~100-word passages.")] = Path("README.md"),
    passages: Annotated[int, typer.Option(help="Passages to embed.")] = 512,
    llm_calls: Annotated[int, typer.Option(help="Distinct prompts per LLM measurement.")] = 5,
    as_json: JsonOpt = False,
) -> None:
    """Embedder and reranker throughput; LLM latency and tokens/s (when an LLM is configured)."""
    from ..eval.bench_models import bench_models

    with console.status("Benchmarking models..."):
        report = asyncio.run(bench_models(settings_for(), text=text.read_text(encoding="utf-8"), passages=passages,
                                          llm_calls=llm_calls))
    if as_json:
        print_json(report)
        return
    for part, figures in report.items():
        console.print(f"[bold]{part}[/]: " + ", ".join(f"{k}={v}" for k, v in figures.items()))


@bench_app.command("ingest")
def bench_ingest_cmd(
    paths: PdfPathsArg,
    tables: Annotated[str, typer.Option(help="Table detection: regions, lines or off.")] = "regions",
    headings: Annotated[str, typer.Option(help="Section detector: auto, learned, regions or heuristic.")] = "auto",
    all_stages: Annotated[bool, typer.Option(
        "--all-stages", help="The whole pipeline (embeddings, knowledge graph), seconds and throughput per stage.")
    ] = False,
    plot: Annotated[Path | None, typer.Option(help="Also write a PNG: seconds per stage.")] = None,
    workers: Annotated[int | None, typer.Option(
        help="Table-finder processes (default BOOKRAG_PARSE_WORKERS: one per core; 1: in-process).")] = None,
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Indexing throughput without an LLM: pages/s for parsing, nodes+relationships/s for writing; with
    --all-stages every stage of the pipeline (it re-indexes the PDFs, LLM-free: use another --instance to keep a
    library's LLM-built graphs)."""
    from ..eval.bench_ingest import IngestBench, StagesBench, bench_ingest, bench_ingest_all_stages
    from ..llm.factory import index_dimensions
    from ..parsing.table_pool import pool_size
    from ..tree.learned import HeadingModel

    pdfs = pdf_paths(paths)
    rag = library(instance)
    indexing = rag.settings.indexing
    indexing.parse_workers = pool_size(workers or indexing.parse_workers)  # the count the report states

    async def work(db: Neo4jClient) -> IngestBench | StagesBench:
        if all_stages:
            return await bench_ingest_all_stages(db, rag.settings, rag.models, pdfs)
        return await bench_ingest(db, pdfs, dimensions=index_dimensions(rag.settings, rag.models.embedder),
                                  tables=tables, workers=rag.settings.indexing.parse_workers,
                                  headings=headings,  # type: ignore[arg-type]
                                  model=HeadingModel.shipped(rag.settings.indexing.heading_model))

    with console.status(f"Indexing {len(pdfs)} PDFs..."):
        report = run_with_db(rag, work)
    stages = report.seconds
    _plot(plot, list(stages), list(stages.values()), ylabel="seconds",
          title=f"Indexing: seconds per stage, {report.documents} PDFs, {report.pages} pages")
    print_json(report if as_json else report.model_dump(exclude={"per_document"}))


@bench_app.command("tables")
def bench_tables_cmd(
    paths: PdfPathsArg,
    tables: Annotated[str, typer.Option(help="Table detection: regions or lines.")] = "regions",
    workers: Annotated[int | None, typer.Option(help="Table-finder processes (default: one per core).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """The table prefilter's precision and recall over pages, against running the table finder on every page."""
    from ..eval.bench_tables import bench_tables
    from ..parsing.table_pool import pool_size

    if tables not in ("regions", "lines"):
        raise typer.BadParameter("--tables is regions or lines")
    with console.status("Finding tables on every page..."):
        report = bench_tables(pdf_paths(paths), mode=tables, workers=pool_size(workers or 0))  # type: ignore[arg-type]
    print_json(report if as_json else report.model_dump(exclude={"per_document"}))


@bench_app.command("graph")
def bench_graph_cmd(
    paths: PdfPathsArg,
    no_llm: Annotated[bool, typer.Option("--no-llm", help="spaCy extraction, ER without the LLM judge.")] = False,
    samples: Annotated[int, typer.Option(help="Merges to sample per kind for inspection.")] = 10,
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Knowledge graph with basic vs gradient entity resolution per document (the paper's Figure 6)."""
    from ..eval.bench_graph import bench_graph

    rag = library(instance)
    rows = run_with_db(rag, lambda db: bench_graph(db, rag.settings, pdf_paths(paths), use_llm=not no_llm,
                                                         samples=samples))
    render(rows, ("document", "pages", "ER", "entities", "relations", "density", "components", "largest",
                  "diameter", "GT-Links/entity", "merges", "ms/lookup"),
           (_graph_cells(r, mode) for r in rows for mode in ("basic", "gradient")), as_json)
    if as_json:
        return
    for r in rows:
        console.print(f"{r.document}: entities {r.entity_change:+.1%}, density {r.density_change:+.1%}; "
                      f"merges by kind {r.merges.counts}")


def _graph_cells(r: GraphBench, mode: str) -> tuple[object, ...]:
    m = r.basic if mode == "basic" else r.gradient
    return (r.document, r.pages, mode, m.entities, m.relations, f"{m.density:.2e}", m.components, m.largest_component,
            m.largest_component_diameter, f"{m.gt_links_per_entity:.2f}", m.er.get("merges", 0),
            m.er.get("lookup_ms_mean", ""))


@bench_app.command("query")
def bench_query_cmd(
    doc: Annotated[str | None, typer.Argument(help="An indexed document (key or file name); none with --library.")
                   ] = None,
    whole: Annotated[bool, typer.Option("--library", help="Ask over the whole library (give --question).")] = False,
    questions: Annotated[Path | None, typer.Option(
        help="A benchmark folder (questions.jsonl): its questions about DOC.")] = None,
    question: Annotated[list[str] | None, typer.Option(help="A question (repeatable).")] = None,
    limit: Annotated[int, typer.Option(help="At most this many questions.")] = 20,
    repeat: RepeatOpt = 3,
    no_llm: NoLlmPlanOpt = False,
    method: MethodOpt = "bookrag",
    plot: Annotated[Path | None, typer.Option(help="Also write a PNG: p50 per operator.")] = None,
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Retrieval latency p50/p95 on a document (or the whole library), without and with model inference, per
    operator."""
    from ..eval.bench_query import QueryBench, bench_query
    from ..eval.benchmark import load_benchmark
    from ..retrieval import subtrees

    if (doc is not None) == whole:
        raise typer.BadParameter("give a document, or --library")
    if whole and (not question or questions is not None):
        raise typer.BadParameter("--library asks the --question given (a benchmark's are about one document)")
    rag = library(instance, use_llm=not no_llm)

    async def work(db: Neo4jClient) -> QueryBench:
        if whole:
            documents = await subtrees.scope_documents(db, None)  # the documents a question reads
            report = await bench_query(rag.retriever(db), None, list(question or [])[:limit], repeat=repeat,
                                       method=method)
            return report.model_copy(update={"document": f"the library ({len(documents)} documents)",
                                             "pages": sum(d.pages or 0 for d in documents)})
        found = await rag.adocument(cast(str, doc))  # a document unless --library
        asked = list(question or [])
        if questions is not None:
            asked += [q.question for q in load_benchmark(questions).questions if q.doc == found.name]
        if not asked:
            raise typer.BadParameter("give --question or --questions FOLDER with questions about this document")
        report = await bench_query(rag.retriever(db), [found.key], asked[:limit], repeat=repeat, method=method)
        return report.model_copy(update={"document": found.name, "pages": found.pages})

    report = run_with_db(rag, work)
    ops = report.per_operator_without_model
    _plot(plot, list(ops), [v.p50_ms for v in ops.values()], ylabel="p50 ms, without model inference",
          title=f"Retrieval latency per operator: {report.document}")
    print_json(report) if as_json else console.print_json(data=report.model_dump())


@bench_app.command("cypher")
def bench_cypher_cmd(
    questions: Annotated[Path, typer.Argument(help="A benchmark folder (questions.jsonl, pdfs/).")],
    limit: Annotated[int, typer.Option(help="At most this many questions (of indexed documents).")] = 20,
    no_llm: NoLlmPlanOpt = False,
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """text2Cypher with the configured LLM on a benchmark's questions: how often its query is valid (runs
    through the read-only gate) and how often it returns something."""
    from ..eval.bench_cypher import CypherBench, bench_cypher
    from ..eval.benchmark import load_benchmark

    rag = library(instance, use_llm=not no_llm)

    async def work(db: Neo4jClient) -> CypherBench:
        keys = {d.name: d.key for d in await rag.adocuments()}
        asked = [(keys[q.doc], q.question) for q in load_benchmark(questions).questions if q.doc in keys]
        return await bench_cypher(rag.retriever(db), asked[:limit])

    report = run_with_db(rag, work)
    if as_json:
        print_json(report)
        return
    console.print(report.model_dump(exclude={"per_question"}))


bench_app.command("scale")(bench_scale_cmd)  # in .scale: the growing library, its projection


@bench_app.command("compare")
def bench_compare_cmd(
    before: Annotated[Path, typer.Argument(help="A `bookrag eval --out` folder.")],
    after: Annotated[Path, typer.Argument(help="Another one, e.g. after a change.")],
    as_json: JsonOpt = False,
) -> None:
    """Two evaluations question by question: mean recall per method, the largest per-question difference and
    how many questions retrieved identical units (a refactor must change nothing)."""
    from dataclasses import asdict

    from ..eval.compare import compare_runs, compare_table, read_rows

    diffs = compare_runs(read_rows(before), read_rows(after))
    print_json([asdict(d) for d in diffs]) if as_json else print(compare_table(diffs), end="")


@bench_app.command("headings")
def bench_headings_cmd(
    paths: Annotated[list[Path], typer.Argument(help="PDF files with outlines (bookmarks), or folders.")],
    llm: Annotated[bool, typer.Option(help="Also score LLM section filtering (needs a configured LLM).")] = False,
    corpus: Annotated[Path | None, typer.Option(
        help="Also train without each family of this corpus (FAMILY=PATH lines) and score on it.")] = None,
    detectors: Annotated[str, typer.Option(help="The detectors to score beside the default, comma-separated.")] = (
        "heuristic,learned,regions"),
    as_json: JsonOpt = False,
) -> None:
    """Section detection with the outline hidden, scored against the outline: precision, recall, F1, levels, for
    each detector (heuristic, learned, regions) and the default (BOOKRAG_HEADINGS)."""
    from ..eval.bench_headings import BENCH_DETECTORS, bench_headings, leave_one_family_out
    from ..llm.factory import build_llm
    from ..tree.learned import HeadingModel
    from ..tree.training import corpus_paths
    from .train import corpus_arguments

    settings = settings_for()
    chosen = tuple(d.strip() for d in detectors.split(",") if d.strip())
    if unknown := [d for d in chosen if d not in BENCH_DETECTORS]:
        raise typer.BadParameter(f"unknown detector {', '.join(unknown)}; choose from {', '.join(BENCH_DETECTORS)}")
    model = build_llm(settings) if llm else None
    with console.status("Detecting sections..."):
        rows = asyncio.run(bench_headings(pdf_paths(paths), model, default=settings.indexing.headings,
                                          workers=settings.indexing.parse_workers,
                                          detectors=cast("tuple[Detector, ...]", chosen),
                                          model=HeadingModel.shipped(settings.indexing.heading_model)))
    families = None
    if corpus is not None:
        with console.status("Leave one family out...") as status:
            families = leave_one_family_out(corpus_paths(corpus_arguments([], corpus)),
                                            workers=settings.indexing.parse_workers, progress=status.update)
    columns = (*chosen, "default", *(["llm"] if llm else []))
    render({"default_detector": settings.indexing.headings, "documents": rows, "leave_one_family_out": families},
           ("document", "pages", "outline", *(f"{d} F1/levels" for d in columns), "trained on"),
           ((r["document"][:40], r["pages"], r["default"]["outline"],
             *(f"{r[d]['f1']:.3f} / {r[d]['level_accuracy']:.3f}" for d in columns), "yes" if r["in_training"] else "")
            for r in rows), as_json)
    if families and not as_json:
        render(None, ("held-out family", "documents (matching)", "learned F1/levels", "auto F1/levels",
                      "heuristic F1/levels", "auto F1, matching"),
               ((f, f"{s['documents']} ({s['matching_documents']})",
                 *(f"{s[f'{k}_f1']:.3f} / {s[f'{k}_level_accuracy']:.3f}" for k in ("learned", "auto", "heuristic")),
                 f"{s['auto_f1_matching']:.3f}") for f, s in families.items()), False)


COMMANDS = {"eval": eval_cmd}
