"""``bookrag bench scale``: retrieval latency over the indexed library as it grows; with ``--ingest``, the library
grown from PDFs and measured at each size (store, heap, page cache, GDS projection, pages/s, latency); with
``--project N``, a recorded run projected to N documents; with ``--clone``, the library grown by clones of its
indexed documents and the query path measured at each size (cold and warm, one document and the library, client
and server memory). The work is in :mod:`bookrag_neo4j.eval.bench_scale`, :mod:`bookrag_neo4j.eval.scale_curve`
and :mod:`bookrag_neo4j.eval.scale_projection`; ``bench_app`` (in :mod:`.evaluate`) registers the command.

    bookrag bench scale --question "..." --sizes 1,5,20 --no-llm                        # the library as it is
    bookrag bench scale --ingest pdfs/ --sizes 1,5,10 --no-llm --out scale-out --plot scale.png
    bookrag bench scale --project 10000 --from scale-out/scale.json
    bookrag bench scale --clone --sizes 10,50,200,500 --no-llm --out curve      # curve/scale.json, scale.png
    bookrag bench scale --drop-clones
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .common import (
    InstanceOpt,
    JsonOpt,
    MethodOpt,
    NoLlmPlanOpt,
    RepeatOpt,
    console,
    library,
    pdf_paths,
    print_json,
    render,
    run_with_db,
)

if TYPE_CHECKING:
    from ..db.client import Neo4jClient
    from ..eval.scale_run import ScaleRun
    from ..sdk import BookRAG


def bench_scale_cmd(
    paths: Annotated[list[Path] | None, typer.Argument(
        help="With --ingest: the PDFs (files or folders) to grow the library with, in order.")] = None,
    ingest: Annotated[bool, typer.Option(
        "--ingest", help="Index PATHS one by one and measure the library at each size (resumable; see --out).")
    ] = False,
    clone: Annotated[bool, typer.Option(
        "--clone", help="Grow the library by clones of its indexed documents (copied in Cypher, round-robin) and "
                        "measure the query path at each size: cold (a new bookrag retrieve process: wall time, max "
                        "RSS) and warm latency, of one document and of the library; client RSS; Neo4j heap and page "
                        "cache. Writes scale.json, scale.png and report.md in --out (resumable).")] = False,
    drop_clones: Annotated[bool, typer.Option(
        "--drop-clones", help="Delete every clone that --clone made (the library as it was indexed).")] = False,
    cold: Annotated[bool, typer.Option(
        help="--clone: also ask each question in a new process (cold).")] = True,
    question: Annotated[list[str] | None, typer.Option(
        help="A question (repeatable), asked of the whole library (default: three generic ones).")] = None,
    sizes: Annotated[str, typer.Option(help="Library sizes (documents), comma-separated.")] = "1,5,20",
    stages: Annotated[str, typer.Option(
        help="--ingest: tree (tree, embeddings), graph (also the knowledge graph) or all (also layout, content "
             "graph).")] = "graph",
    order: Annotated[str, typer.Option(help="--ingest: given (folders sorted) or pages (fewest pages first).")
                     ] = "given",
    out: Annotated[Path, typer.Option(
        help="--ingest, --clone: run folder (scale.json, report.md; --clone also scale.png); run again to resume.")
                   ] = Path("scale-out"),
    project_to: Annotated[int | None, typer.Option(
        "--project", help="Print the projection of a recorded run (--from) to this many documents; index nothing.")
    ] = None,
    from_run: Annotated[Path | None, typer.Option(
        "--from", help="--project: the run's scale.json or folder (default: --out).")] = None,
    deadline_hours: Annotated[float, typer.Option(help="--project: hours to index the projected library in.")] = 24.0,
    basis: Annotated[str, typer.Option(help="--project: fit on pages or documents.")] = "pages",
    checkpoint: Annotated[bool, typer.Option(
        help="--ingest: restart a managed server before reading its store size (a checkpoint: until one, new data "
             "sits in the transaction logs).")] = True,
    repeat: RepeatOpt = 3,
    no_llm: NoLlmPlanOpt = False,
    method: MethodOpt = "bookrag",
    plot: Annotated[Path | None, typer.Option(
        help="Also write a PNG: p50 by library size; with --ingest or --project, 4 panels (disk, memory, ingest, "
             "latency); with --clone, latency and memory (as --out's scale.png).")] = None,
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Retrieval latency as the library grows: the questions asked of the first 1, 5, 20... indexed documents.
    With --ingest, grows the library from PATHS and also records ingest pages/s, store size, heap, page cache and
    GDS projection memory at each size; --project N projects a recorded run to N documents. With --clone, grows the
    library by clones of its indexed documents (copied in Cypher) and measures the query path at each size, cold
    and warm, with client and server memory; --drop-clones removes the clones."""
    from ..eval.bench_scale import DEFAULT_QUESTIONS

    try:
        wanted = [int(s) for s in sizes.split(",") if s.strip()]
    except ValueError:
        raise typer.BadParameter(f"--sizes takes comma-separated numbers, not {sizes!r}") from None
    if not wanted or min(wanted) < 1:
        raise typer.BadParameter("--sizes needs positive numbers")
    if project_to is not None:
        _scale_projection(from_run or out, project_to, deadline_hours, basis, plot, as_json)
        return
    if paths and not ingest:
        raise typer.BadParameter("PDF paths are for --ingest: add --ingest, or drop them to measure the library")
    if ingest + clone + drop_clones > 1:
        raise typer.BadParameter("--ingest, --clone and --drop-clones go one at a time")
    questions = list(question or DEFAULT_QUESTIONS)
    rag = library(instance, use_llm=not no_llm)
    if drop_clones:
        from ..eval.scale_clone import drop_clones as drop

        console.print(f"dropped {run_with_db(rag, lambda db: drop(db, rag.settings.image_dir))} clones")
        return
    if clone:
        _scale_clone(rag, wanted, out, questions, repeat, method, cold, instance, plot, as_json)
        return
    if ingest:
        _scale_ingest(rag, paths or [], wanted, stages, order, out, questions, repeat, method, plot, as_json,
                      checkpoint)
        return
    from ..eval.bench_scale import bench_scale

    rows = run_with_db(rag, lambda db: bench_scale(rag.retriever(db), questions, sizes=wanted, repeat=repeat,
                                                         method=method))
    if plot is not None:
        from ..eval.report import bar_chart

        bar_chart(plot, [f"{r.documents} docs" for r in rows], [r.without_model_inference.p50_ms for r in rows],
                  ylabel="p50 ms, without model inference", title="Retrieval latency as the library grows")
    render(rows, ("documents", "pages", "tree nodes", "entities", "p50 ms", "p95 ms", "p50 ms with models"),
           ((r.documents, r.pages, r.tree_nodes, r.entities, r.without_model_inference.p50_ms,
             r.without_model_inference.p95_ms, r.with_model_inference.p50_ms) for r in rows), as_json)


def _scale_ingest(rag: BookRAG, paths: list[Path], sizes: list[int], stages: str, order: str, out: Path,
                  questions: list[str], repeat: int, method: str, plot: Path | None, as_json: bool,
                  checkpoint: bool) -> None:
    """``bench scale --ingest``: grow the library from ``paths``, a row per size in ``out``."""
    from ..eval.bench_scale import bench_scale_ingest, plan_documents, run_settings
    from ..eval.scale_projection import markdown_rows, plot_scale
    from ..eval.scale_run import ScaleConfig
    from ..index.pipeline import Indexer

    if not paths:
        raise typer.BadParameter("--ingest needs PDF files or folders")
    if stages not in ("tree", "graph", "all") or order not in ("given", "pages"):
        raise typer.BadParameter("--stages is tree, graph or all; --order is given or pages")
    plan = plan_documents(pdf_paths(paths), order=order)  # type: ignore[arg-type]
    config = ScaleConfig(stages=stages, questions=questions, method=method, repeat=repeat,
                         llm=rag.use_llm, checkpoint=checkpoint)
    console.print(f"{len(plan)} distinct PDFs, {sum(d.pages for d in plan):,} pages; sizes {sizes}; run folder {out}")

    async def work(db: Neo4jClient) -> ScaleRun:
        indexer = Indexer(db, run_settings(rag.settings, out), rag.models, use_llm=rag.use_llm)
        return await bench_scale_ingest(indexer, rag.retriever(db), rag.settings, plan, out=out, sizes=sizes,
                                        config=config, progress=lambda line: console.print(line, markup=False))

    run = run_with_db(rag, work)
    if plot is not None and run.rows:
        plot_scale(run.rows, plot)
    print_json(run.model_dump(mode="json")) if as_json else print(markdown_rows(run), end="")


def _scale_clone(rag: BookRAG, sizes: list[int], out: Path, questions: list[str], repeat: int, method: str,
                 cold: bool, instance: str | None, plot: Path | None, as_json: bool) -> None:
    """``bench scale --clone``: the library grown by clones to each size, the query path measured there."""
    from ..eval.scale_curve import ColdProcess, bench_scale_clone, curve_config
    from ..eval.scale_curve_report import curve_markdown, plot_curve
    from ..eval.scale_run import CurveRun

    process = ColdProcess(extra=("--instance", instance) if instance else ()) if cold else None

    async def work(db: Neo4jClient) -> CurveRun:
        config, names = await curve_config(db, questions=questions, method=method, repeat=repeat,
                                           llm=rag.use_llm, cold=cold)
        console.print(f"{len(names)} indexed documents to clone ({', '.join(names)}); sizes {sizes}; run folder {out}",
                      markup=False)
        return await bench_scale_clone(db, rag.retriever(db), rag.settings, out=out, sizes=sizes,
                                       config=config, cold=process,
                                       progress=lambda line: console.print(line, markup=False))

    run = run_with_db(rag, work)
    if plot is not None and run.rows:
        plot_curve(run, plot)
    print_json(run.model_dump(mode="json")) if as_json else print(curve_markdown(run), end="")


def _scale_projection(source: Path, documents: int, deadline_hours: float, basis: str, plot: Path | None,
                      as_json: bool) -> None:
    """``bench scale --project N``: a recorded run's figures fitted and read at ``documents``."""
    from dataclasses import asdict

    from ..eval.scale_projection import plot_scale, project, projection_table
    from ..eval.scale_run import read_run

    if basis not in ("pages", "documents"):
        raise typer.BadParameter("--basis is pages or documents")
    run = read_run(source)
    if not run.rows:
        raise typer.BadParameter(f"{source} has no measured size yet")
    try:
        projection = project(run.rows, documents=documents, deadline_hours=deadline_hours,
                             basis=basis)  # type: ignore[arg-type]
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    if plot is not None:
        plot_scale(run.rows, plot)
    print_json(asdict(projection)) if as_json else print(projection_table(projection), end="")
