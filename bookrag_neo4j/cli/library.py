"""The library commands: ``bookrag index``, ``bookrag docs list | set | delete``, ``bookrag stats``, ``bookrag toc``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal, cast

import typer
from rich.markup import escape

from .common import DocArg, InstanceOpt, JsonOpt, catalogue, console, library, pdf_paths, print_json, render
from .progress_bars import RichProgress

if TYPE_CHECKING:  # the reports' types; the pipeline itself is imported when a command runs
    from pydantic import BaseModel

    from ..content.build import ContentGraphReport
    from ..index.pipeline import IndexReport
    from ..kg.build import GraphReport
    from ..layout.build import LayoutReport
    from ..library.documents import Document
    from ..sdk_index import Parser

docs_app = typer.Typer(help="The documents in the library.", no_args_is_help=True)


def index(
    paths: Annotated[list[str] | None, typer.Argument(
        help="PDF files to index (with --stage graph, layout or content-graph: indexed documents, by key, file name "
             "or path).")] = None,
    mineru_output: Annotated[Path | None, typer.Option(help="Index a MinerU output folder instead.")] = None,
    parser: Annotated[str, typer.Option(help="pymupdf (embedded) or mineru (runs MinerU if installed).")] = "pymupdf",
    stage: Annotated[Literal["all", "tree", "graph", "layout", "content-graph", "card"], typer.Option(
        help="all: tree, embeddings, knowledge graph, layout layer and content graph; tree: the tree and its "
             "embeddings; graph: the knowledge graph alone; layout: the layout layer alone (ToC, passages, table "
             "rows, SIMILAR); content-graph: G²-Reader's content graph alone; card: the document's card read "
             "again (what `docs set` set stays).")] = "all",
    evolution: Annotated[Literal["off", "llm", "lite"] | None, typer.Option(
        help="Content-graph evolution (default BOOKRAG_G2_EVOLUTION, off): llm (the paper's prompts), lite (no "
             "model), off.")] = None,
    er: Annotated[Literal["gradient", "basic"] | None, typer.Option(
        help="Entity resolution (default BOOKRAG_ER_MODE, gradient).")] = None,
    no_llm: Annotated[bool, typer.Option(
        "--no-llm", help="No LLM: sections from the outline or layout, entities by spaCy.")] = False,
    no_embed: Annotated[bool, typer.Option("--no-embed", help="Skip embedding the blocks.")] = False,
    ocr: Annotated[Literal["auto", "off", "force"] | None, typer.Option(
        help="OCR with Tesseract (default BOOKRAG_OCR, auto): auto reads the pages that look scanned and the "
             "words inside figures, force every page too, off nothing.")] = None,
    force: Annotated[bool, typer.Option(help="Re-index even when the content is unchanged.")] = False,
    replace: Annotated[bool, typer.Option(help="Replace indexed documents of the same file name from other folders "
                                               "(the same path with new content is always replaced).")] = False,
    workers: Annotated[int, typer.Option("--workers", min=1, help=(
        "Worker processes indexing the PDFs side by side. Every `bookrag index` of PDFs, on this or other machines "
        "against one Neo4j, shares them through leases (BOOKRAG_INDEX_LEASE_SECONDS)."))] = 1,
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Index PDFs into the BookIndex (tree, knowledge graph, GT-Links in Neo4j); unchanged files are a no-op."""
    if parser not in ("pymupdf", "mineru"):
        raise typer.BadParameter("--parser is pymupdf or mineru")
    rag = library(instance, use_llm=not no_llm, ocr=ocr)
    progress = None if as_json else RichProgress()
    sources: list[tuple[Path | None, Path | None]] = [(None, mineru_output)] if mineru_output else []
    layer = stage in ("graph", "layout", "content-graph", "card")  # a stage over documents already indexed
    leased = not layer and parser == "pymupdf"  # PDFs by their file's key: claimed under leases (index/workers.py)
    check_workers(workers, leased=leased, mineru_output=mineru_output is not None)
    pdfs = [] if layer else pdf_paths(paths or [])
    sources += [] if leased else [(path, None) for path in pdfs]
    if not sources and not paths:
        raise typer.BadParameter("give PDF files, --mineru-output DIR, or (with --stage graph|layout|content-graph|"
                                 "card) documents")

    async def work() -> tuple[list[BaseModel], int]:
        reports: list[BaseModel] = []
        for doc in (paths or []) if layer else []:
            if stage == "card":
                card = await rag.aread_card(doc)
                reports.append(card)
                if not as_json:
                    console.print(f"{escape(doc)}: {escape(card.issuer or '-')}, {card.kind}, {card.period or '-'}")
            elif stage == "graph":
                reports.append(graph := await rag.abuild_graph(doc, er_mode=er, force=force, progress=progress))
                if not as_json:
                    _print_graph_report(graph)
            elif stage == "layout":
                reports.append(built := await rag.abuild_layout(doc, force=force, progress=progress))
                if not as_json:
                    _print_layout_report(built)
            else:
                reports.append(content := await rag.abuild_content_graph(doc, evolution=evolution, force=force,
                                                                         progress=progress))
                if not as_json:
                    _print_content_graph_report(content)
        for pdf, folder in [] if layer else sources:
            reports.append(report := await rag.aindex(pdf, mineru_output=folder, parser=cast("Parser", parser),
                                                      embed=not no_embed,
                                                      knowledge_graph=stage == "all", layout=stage == "all",
                                                      replace=replace, er_mode=er, force=force, progress=progress))
            if not as_json:
                _print_report(report)
        if not (leased and pdfs):
            return reports, 0
        from ..index.workers import IndexOptions
        from .indexing import index_pdfs

        summary = await index_pdfs(rag, pdfs, workers=workers, quiet=as_json, progress=progress,
                                   print_report=_print_report, options=IndexOptions(
                                       embed=not no_embed, knowledge_graph=stage == "all", layout=stage == "all",
                                       force=force, replace=replace, er_mode=er, use_llm=not no_llm))
        return reports + [d.report for d in summary.documents if d.report is not None], summary.failed

    reports, failed = rag.run(work())
    if as_json and reports:
        dumped = [r.model_dump() for r in reports]
        print_json(dumped if len(dumped) > 1 else dumped[0])
    if failed:
        raise typer.Exit(1)


def check_workers(workers: int, *, leased: bool, mineru_output: bool) -> None:
    """``--workers`` above 1 indexes PDF files (pymupdf): not a layer stage, MinerU, or a MinerU output folder."""
    if workers > 1 and (not leased or mineru_output):
        raise typer.BadParameter("--workers indexes PDF files (parser pymupdf, --stage all or tree): not with "
                                 "--stage graph|layout|content-graph, --parser mineru or --mineru-output")


def _print_usage(llm_usage: dict[str, dict[str, int]]) -> None:
    for stage, usage in llm_usage.items():
        console.print(f"  LLM {stage}: {usage['calls']} calls, {usage['prompt_tokens']}+{usage['completion_tokens']} "
                      f"tokens, {usage.get('cached_calls', 0)} cached")


def _print_seconds(seconds: dict[str, float], extra: str = "") -> None:
    if seconds:
        console.print("  time: " + ", ".join(f"{k} {v:.2f}s" for k, v in seconds.items()) + extra)


def _print_warnings(warnings: list[str]) -> None:
    for warning in warnings:
        console.print(f"  [yellow]warning:[/] {warning}")


def _print_report(r: IndexReport) -> None:
    if r.status == "unchanged":
        console.print(f"[yellow]{r.name}[/] is already indexed and unchanged (key {r.doc_key}).")
    else:
        total = sum(r.seconds.values()) or 1e-9
        console.print(f"[green]{r.status}[/] {r.name} (key {r.doc_key}): {r.pages} pages, "
                      f"sections from {r.heading_source} {r.sections_by_level}, blocks {r.blocks_by_type}")
        _print_seconds(r.seconds, f" ({r.pages / total:.1f} pages/s); wrote {r.nodes_written} nodes, "
                                  f"{r.relationships_written} relationships; embedded {r.embedded} blocks")
        _print_usage(r.llm_usage)
        _print_warnings(r.warnings)
    if r.graph:
        _print_graph_report(r.graph)
    if r.layout:
        _print_layout_report(r.layout)
    if r.content_graph:
        _print_content_graph_report(r.content_graph)


def _print_layer(name: str, built: bool, figures: str, seconds: dict[str, float], warnings: list[str]) -> None:
    """A layer build's line: built (green) or unchanged, its figures, then its time and warnings."""
    console.print(f"  {f'[green]{name}[/]' if built else f'{name} unchanged'}{figures}")
    _print_seconds(seconds)
    _print_warnings(warnings)


def _print_content_graph_report(r: ContentGraphReport) -> None:
    c = r.counts
    _print_layer("content graph", r.status == "built", f" ({r.evolution}): {c.nodes} nodes, {c.window_links} window, "
                 f"{c.knn_links} knn and {c.llm_links} llm links", r.seconds, [])


def _print_layout_report(r: LayoutReport) -> None:
    c = r.counts
    _print_layer("layout", r.status == "built", f": {c.toc_entries} ToC entries, {c.passages} passages, "
                 f"{c.table_rows} table rows, {c.refers_to} REFERS_TO, {c.similar} SIMILAR, {c.labelled_pages} "
                 "labelled pages", r.seconds, r.warnings)


def _print_graph_report(g: GraphReport) -> None:
    if g.status == "unchanged":
        console.print(f"  graph unchanged: {g.entities} entities, {g.relations} relations, {g.gt_links} GT-Links")
        return
    er = g.er
    console.print(f"  [green]graph[/]: {g.entities} entities from {g.extracted_mentions} mentions, "
                  f"{g.relations} relations, {g.contained_in} CONTAINED_IN, {g.gt_links} GT-Links; "
                  f"ER merges {er.get('merges', 0)} (exact {er.get('exact', 0)}), "
                  f"{er.get('lookup_ms_mean', 0)} ms per candidate lookup")
    _print_seconds(g.seconds)
    _print_usage(g.llm_usage)
    _print_warnings(g.warnings)


def graph_state(doc: Document) -> str:
    """The graph column: its state, and how many nodes had no LLM extraction when some failed."""
    failed = doc.graph_counts.llm_failed
    return (doc.graph or "-") + (f" ({failed} nodes without LLM entities: the LLM did not answer)" if failed else "")


@docs_app.command("list")
def docs_list(instance: InstanceOpt = None, as_json: JsonOpt = False) -> None:
    """List the indexed documents."""
    documents = catalogue(instance).documents()
    render([d.listing() for d in documents], ("key", "name", "pages", "status", "kind", "issuer", "period",
                                              "sections from", "graph", "layout", "g2", "indexed"),
           ((d.key[:16], escape(d.name), d.pages, escape(d.status + (f": {d.error}" if d.error else "")),
             *(escape(getattr(d.card, f, None) or "-") for f in ("kind", "issuer", "period")),
             d.heading_source, graph_state(d), d.layout or "-", d.g2 or "-", d.indexed_at)
            for d in documents), as_json)


@docs_app.command("set")
def docs_set(
    doc: DocArg,
    title: Annotated[str | None, typer.Option(help="The document's title.")] = None,
    issuer: Annotated[str | None, typer.Option(help="The company or organisation that issued it.")] = None,
    kind: Annotated[str | None, typer.Option(help="10-K, 10-Q, 8-K, earnings release, annual report, paper, manual, "
                                                  "brochure, report ...")] = None,
    period: Annotated[str | None, typer.Option(help="The period it covers, e.g. FY2022 (its years are read from it).")
                      ] = None,
    date: Annotated[str | None, typer.Option(help="Its date, e.g. 2023-03-09.")] = None,
    summary: Annotated[str | None, typer.Option(help="A sentence on what it is.")] = None,
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Correct a document's card (what questions over the library name it by); kept when it is indexed again."""
    fields = {"title": title, "issuer": issuer, "kind": kind, "period": period, "date": date, "summary": summary}
    if all(v is None for v in fields.values()):
        raise typer.BadParameter("give at least one of --title, --issuer, --kind, --period, --date, --summary")
    card = catalogue(instance).set_card(doc, **fields)
    if as_json:
        print_json(card.model_dump())
    else:
        console.print(f"{escape(doc)}: {escape(card.issuer or '-')}, {escape(card.kind or '-')}, "
                      f"{escape(card.period or '-')} (years {', '.join(map(str, card.years)) or '-'})")


@docs_app.command("delete")
def docs_delete(doc: DocArg, instance: InstanceOpt = None) -> None:
    """Delete one document's index (its nodes and what only it references)."""
    deleted = catalogue(instance).delete(doc)
    console.print(f"Deleted {deleted.name}: {deleted.deleted} nodes.")


def stats(doc: DocArg, instance: InstanceOpt = None, as_json: JsonOpt = False) -> None:
    """Counts of an indexed document: pages, sections by level, blocks by type, its knowledge graph (entities,
    relations, GT-Links, ER merges, density, components, largest-component diameter), layout layer and content
    graph."""
    result = catalogue(instance).stats(doc).model_dump(mode="json")
    if as_json:
        print_json(result)
        return
    for key, value in result.items():
        if isinstance(value, dict) and key != "sections_by_level" and key != "blocks_by_type":
            for gkey, gvalue in value.items():
                console.print(f"{key}.{gkey:24} {gvalue}")
        elif value is not None or key != "graph":
            console.print(f"{key:30} {value}")


def toc(doc: DocArg, instance: InstanceOpt = None, as_json: JsonOpt = False) -> None:
    """The recovered table of contents: title, level and first page of each section, in reading order."""
    rows = catalogue(instance).toc(doc)
    if as_json:
        print_json([r.model_dump(include={"title", "level", "page"}) for r in rows])
        return
    for r in rows:
        sys.stdout.write(f"{'  ' * (r.level - 1)}{r.title}  ... {r.page}\n")


COMMANDS = {"index": index, "stats": stats, "toc": toc}
