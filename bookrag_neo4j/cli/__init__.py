"""The ``bookrag`` command line: a thin shell over the SDK (:class:`bookrag_neo4j.sdk.BookRAG`), a module per group.

    server.py: neo4j start | stop | status | logs | init, doctor     library.py: index, docs list | delete, stats, toc
    ask.py: ask, retrieve, methods, cypher  evaluate.py: eval, bench models | ingest | graph | query | scale | headings
    explore.py: browse, bi, query, demo       web.py: serve (the web app)       models.py: models [packages | prepare]
    train.py: train headings           mcp.py: mcp (the MCP server over stdio)

The options and output helpers they share are in :mod:`.common`. Each command imports what it needs when it runs
(``bookrag --version`` and ``--help`` import none of the pipeline); :mod:`.lean_imports` keeps optional imports that no
command uses out of the process.
"""

from __future__ import annotations

import inspect
import logging
import os
from typing import Annotated, Any

import typer
from rich.logging import RichHandler
from rich.markup import escape

from ..errors import BookRAGError
from ..keys import stored_text
from . import ask, evaluate, explore, lean_imports, library, mcp, models, server, train, web
from .common import console

app = typer.Typer(help="BookRAG on Neo4j: index long documents, ask questions with cited evidence.",
                  no_args_is_help=True, pretty_exceptions_enable=False)

_COMMANDS: dict[str, Any] = (server.COMMANDS | library.COMMANDS | ask.COMMANDS | evaluate.COMMANDS
                             | explore.COMMANDS | web.COMMANDS)
for _name in ("doctor", "index", "ask", "retrieve", "cypher", "query", "methods", "eval", "stats", "toc", "browse",
              "bi", "demo", "serve"):  # help order
    app.command(_name)(_COMMANDS[_name])
for _name, _group in {"neo4j": server.neo4j_app, "bench": evaluate.bench_app, "models": models.models_app,
                      "docs": library.docs_app, "train": train.train_app}.items():
    app.add_typer(_group, name=_name)
app.command("mcp")(mcp.mcp)


def flowing(text: str | None) -> str | None:
    """A docstring as help text that the terminal wraps: the lines of each paragraph joined (a docstring's line
    breaks fall mid-phrase once the help is wrapped to another width); paragraphs stay apart."""
    if not text:
        return text
    return "\n\n".join(" ".join(paragraph.split()) for paragraph in inspect.cleandoc(text).split("\n\n"))


for _typer in (app, server.neo4j_app, evaluate.bench_app, models.models_app, library.docs_app, train.train_app):
    for _command in _typer.registered_commands:
        _command.help = flowing(_command.help or (_command.callback.__doc__ if _command.callback else None))


def _print_version(value: bool) -> None:
    if value:
        from .. import __version__

        typer.echo(f"bookrag-neo4j {__version__}")
        raise typer.Exit()


_DEBUG = {"on": False}  # --debug: a failure shows its traceback (main() reads it)


@app.callback()
def _main(verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log progress details.")] = False,
          debug: Annotated[bool, typer.Option("--debug", help="Show the traceback of an error.")] = False,
          version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                                help="Print the version and exit.")] = False) -> None:
    _DEBUG["on"] = debug
    # a terminal gets rich's columns; a log file or a pipe one plain, unwrapped line a record
    handler = RichHandler(console=console, show_path=False) if console.is_terminal else logging.StreamHandler()
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING,
                        format="%(message)s" if console.is_terminal else "%(levelname)s %(name)s: %(message)s",
                        handlers=[handler])
    logging.getLogger("neo4j").setLevel(logging.INFO if verbose else logging.ERROR)
    # The embedder loads in well under a second: transformers' "Loading weights" bar is noise between ours.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")


def main() -> None:
    """Console-script entry point: every error becomes one red line on stderr and exit code 1 (130 for Ctrl-C);
    ``bookrag --debug ...`` re-raises it with its traceback."""
    lean_imports.install(torch_for_spacy=False)  # the packaged spaCy pipeline never uses PyTorch
    try:
        app()
    except KeyboardInterrupt:
        console.print("[red]interrupted[/]", soft_wrap=True)
        raise SystemExit(130) from None
    except Exception as exc:
        if _DEBUG["on"]:
            raise
        console.print(f"[red]error:[/] {escape(one_line(exc))}", soft_wrap=True, highlight=False)
        raise SystemExit(1) from None


def one_line(exc: BaseException) -> str:
    """The error as one line: the package's own errors by their message, others with their type and a hint."""
    message = " ".join(stored_text(str(exc)).split()) or type(exc).__name__
    if isinstance(exc, BookRAGError):
        return message
    return f"{type(exc).__name__}: {message} (run `bookrag --debug ...` for the traceback)"
