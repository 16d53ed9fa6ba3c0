"""The exploring commands: ``bookrag browse`` (a prefilled Neo4j Browser link), ``bookrag bi`` (a BI query as a
table or CSV), ``bookrag query`` (your own read-only Cypher, through the gate) and ``bookrag demo``."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from ..errors import NothingFoundError, QueryNotFoundError
from .common import InstanceOpt, JsonOpt, catalogue, print_json, render, settings_for

if TYPE_CHECKING:
    from ..sdk import BookRAG


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
    from ..browse import answer_url, browser_url, managed_browser, style_url

    rag = catalogue(instance)
    base, login = managed_browser(rag.settings, browser)
    if style:
        url = style_url(base)
    elif answer_trace is not None:
        url = answer_url(base, json.loads(answer_trace.read_text()))
    elif doc is None:
        url = browser_url(base, "library")
    else:
        name = rag.document(doc).name
        query, params = (("section_subtree", {"doc": name, "section": section}) if section else
                         ("entity_pages", {"doc": name, "entity": entity}) if entity else ("toc", {"doc": name}))
        if (section or entity) and not _shows_something(rag, query, params):
            what, lister = ((f"no section whose title contains {section!r}", f"bookrag toc {name}") if section else
                            (f"no entity named {entity!r}", f"bookrag bi entity_mentions --doc {name}"))
            raise NothingFoundError(f"{name} has {what}, so the link would show nothing; `{lister}` lists them")
        url = browser_url(base, query, params)
    sys.stdout.write(url + "\n")
    sys.stderr.write(f"({login})\n")  # stdout stays the link alone, for a pipe
    if open_it:
        import webbrowser

        webbrowser.open(url)


def _shows_something(rag: BookRAG, query: str, params: dict[str, str]) -> bool:
    """Whether the Browser query finds anything: its first row, read through the read-only gate."""
    from ..db.queries import load_query

    return bool(rag.run_cypher(load_query(f"browser/{query}"), params, max_rows=1, truncate=True))


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

    try:
        table = catalogue(instance).bi(name, doc=doc, limit=limit)
    except QueryNotFoundError as exc:
        raise typer.BadParameter(str(exc)) from None
    if as_csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerows([table.columns, *table.rows])
        return
    render(table.records(), table.columns, table.rows, as_json=False)


def demo(
    pdf: Annotated[Path, typer.Argument(help="The PDF to index.")] = Path("/usr/share/R/doc/manual/R-intro.pdf"),
    question: Annotated[list[str] | None, typer.Option(
        "--question", "-q", help="Ask this instead (repeat; default: one question per category, R-intro's or "
                                 "written from the PDF's table of contents).")] = None,
    out: Annotated[Path, typer.Option(help="Where the answers are written as JSON.")] = Path("bookrag-demo"),
    instance: InstanceOpt = None,
) -> None:
    """Index a real manual, answer a single-hop, a multi-hop and a global question with citations, and print
    the Neo4j Browser links to explore the index and each answer's evidence."""
    from .demo import run_demo

    if not pdf.is_file():
        raise typer.BadParameter(f"{pdf} is not here (R-intro.pdf comes with Debian's r-doc-pdf: `make manuals`)")
    asked = [("your question", q) for q in question] if question else None
    asyncio.run(run_demo(settings_for(instance), pdf, out, asked))




def _parameter(text: str) -> tuple[str, object]:
    """``name=value``: the value as JSON when it reads as JSON (``3``, ``true``, ``["a", "b"]``), else the text."""
    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier():
        raise typer.BadParameter(f"{text!r}: write name=value", param_hint="--param")
    try:
        return name, json.loads(value)
    except ValueError:
        return name, value


def query_cmd(
    query: Annotated[str, typer.Argument(help="Read-only Cypher; $name parameters come from --param.")],
    param: Annotated[list[str] | None, typer.Option(
        "--param", "-p", help="A parameter, name=value (JSON or text); repeat for more.")] = None,
    max_rows: Annotated[int, typer.Option(help="The most rows shown; more are left out, and the output says so.")] = 100,
    vectors: Annotated[bool, typer.Option(help="Show embeddings whole (by default each is a short note).")] = False,
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Run your own Cypher, read-only: a query that writes, calls a procedure outside the allow-list, loads files or
    names another database is refused before it runs (`bookrag cypher` writes the query from a question instead).
    Rows over BOOKRAG_CYPHER_MAX_BYTES are cut, and a 30-second timeout applies."""
    rows = catalogue(instance).run_cypher(query, dict(map(_parameter, param or [])), max_rows=max_rows + 1,
                                        truncate=True, vectors=vectors)
    shown, more = rows[:max_rows], len(rows) > max_rows
    note = rows.cut or (f"more than {max_rows} rows: the first {max_rows} shown (add LIMIT, or --max-rows)"
                        if more else None)
    if as_json:
        print_json({"columns": list(shown[0]) if shown else [], "rows": shown, "truncated": bool(note), "note": note})
        return
    columns = list(shown[0]) if shown else []
    render(shown, columns, ([escape(_cell(row[c])) for c in columns] for row in shown), as_json=False)
    if note:
        sys.stderr.write(f"({note})\n")


def _cell(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)


COMMANDS = {"browse": browse, "bi": bi_cmd, "query": query_cmd, "demo": demo}
