"""What every command group shares: the console, the common options, settings for ``--instance``, the SDK
object a command works through, one renderer for ``--json`` versus a table, and one expansion of PDF
arguments (files, folders, globs).

A table on a terminal fits its width, a long section path or name cut at its end ("Item 8. Financial Statements >
Consolid…"); piped or redirected, every cell is printed whole on one line (``bookrag docs list | grep NAME``)."""

from __future__ import annotations

import glob
import json
import sys
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from pydantic_core import to_jsonable_python
from rich.console import Console
from rich.table import Table

from ..errors import DocumentError
from ..keys import stored_text

if TYPE_CHECKING:  # the SDK pulls in the pipeline, the settings pydantic: commands import them when they run
    from ..config import Settings
    from ..db.client import Neo4jClient
    from ..sdk import BookRAG

console = Console(stderr=True)
# Piped or redirected (a log file, CI), rich would fold lines at 80 columns: every message stays one line there.
console.soft_wrap = not console.is_terminal
InstanceOpt = Annotated[str | None, typer.Option("--instance", help="Managed server instance (default: default).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]
DocOpt = Annotated[list[str] | None, typer.Option("--doc", help="Document key or file name (repeat for several; "
                                                              "default: the whole library).")]
DocArg = Annotated[str, typer.Argument(help="Document key or file name.")]
PdfPathsArg = Annotated[list[Path], typer.Argument(help="PDF files or folders of PDFs.")]
RepeatOpt = Annotated[int, typer.Option(help="Timed runs per question (after one warm-up).")]
NoLlmPlanOpt = Annotated[bool, typer.Option("--no-llm", help="Plan and extract without an LLM.")]
MethodOpt = Annotated[str, typer.Option("--method", help="The method to plan with (see `bookrag methods`).")]

T = TypeVar("T")
WHOLE_WIDTH = 1_000_000  # a table printed to a pipe or a file: as wide as its cells, never wrapped or cut


def settings_for(instance: str | None = None) -> Settings:
    """The settings from the environment, for the managed server ``instance`` when one is given, with the
    instance's recorded ports and memory (:func:`~bookrag_neo4j.server.instance_settings`)."""
    from ..config import Settings
    from ..server import instance_settings

    return instance_settings(Settings(neo4j_instance=instance) if instance else Settings())


def library(instance: str | None = None, *, use_llm: bool = True, **overrides: Any) -> BookRAG:
    """The SDK object a command works through; ``overrides``: settings a command's options give (None: not given)."""
    from ..sdk import BookRAG

    settings = settings_for(instance)
    return BookRAG(settings.replace(**{k: v for k, v in overrides.items() if v is not None}), use_llm=use_llm)


def catalogue(instance: str | None = None) -> BookRAG:
    """The SDK object of a command that reads or edits the library without building anything (``docs``, ``stats``,
    ``toc``, ``browse``, ``bi``, ``query``): it sends the driver plain values and uses no GDS client, so the driver
    is imported without pandas (half a second less)."""
    from . import lean_imports

    lean_imports.install(pandas_for_neo4j=False)
    return library(instance)


def run_with_db(rag: BookRAG, work: Callable[[Neo4jClient], Awaitable[T]]) -> T:
    """Run ``work`` with the library's graph client (for the benchmarks, which take one)."""

    async def go() -> T:
        return await work(await rag.aclient())

    return rag.run(go())


def print_json(data: object) -> None:
    """``data`` (JSON values, pydantic models and dataclasses among them) as indented JSON on stdout."""
    sys.stdout.write(json.dumps(to_jsonable_python(data, fallback=str), indent=2) + "\n")


def render(data: object, columns: Sequence[str], rows: Iterable[Sequence[object]], as_json: bool, *,
           header: bool = True, widths: Mapping[str, int] | None = None) -> None:
    """``--json``: ``data`` as JSON on stdout; otherwise ``rows`` (cells, ``None`` as blank) as a table with
    ``columns``. Pass ``rows`` as a generator: it is not consumed for JSON. On a terminal, the columns named in
    ``widths`` share its width (each at most its number), their cells on one line cut at the end ("…"), the others
    whole; piped or redirected, every cell is whole."""
    if as_json:
        print_json(data)
        return
    out = Console()
    terminal, widths = out.is_terminal, widths or {}
    if not terminal:
        out = Console(width=WHOLE_WIDTH)
    table = Table(show_header=header, expand=terminal and bool(widths))
    for name in columns:
        width = widths.get(name) if terminal else None
        table.add_column(name, ratio=width, max_width=width, no_wrap=not terminal or bool(widths), overflow="ellipsis")
    for row in rows:
        table.add_row(*("" if cell is None else str(cell) for cell in row))
    out.print(table)


def pdf_paths(args: Iterable[str | Path]) -> list[Path]:
    """PDF arguments as files: a folder gives the PDFs under it, a glob pattern (quoted, or on a shell that
    does not expand it) its matches, in order; anything else stays as given (its error comes later). A folder
    without PDFs is an error of its own."""
    found: list[Path] = []
    for arg in map(Path, args):
        if arg.is_dir():
            pdfs = sorted(p for p in arg.rglob("*") if p.suffix.lower() == ".pdf" and p.is_file())
            if not pdfs:
                raise DocumentError(f"{stored_text(str(arg))}: a folder with no PDF files in it")
            found += pdfs
        elif not arg.exists() and any(c in str(arg) for c in "*?["):
            found += sorted(Path(p) for p in glob.glob(str(arg), recursive=True))
        else:
            found.append(arg)
    return list(dict.fromkeys(found))
