"""The server commands: ``bookrag neo4j start | stop | status | logs | init`` and ``bookrag doctor``. The server
manager and the doctor (with the Neo4j driver) are imported by the command that runs: ``bookrag --help`` needs
neither."""

from __future__ import annotations

import sys
import time
from typing import Annotated

import typer

from .common import InstanceOpt, JsonOpt, console, library, print_json, render, settings_for

neo4j_app = typer.Typer(help="Run and inspect the Neo4j server bookrag uses.", no_args_is_help=True)


@neo4j_app.command()
def start(instance: InstanceOpt = None, as_json: JsonOpt = False) -> None:
    """Start Neo4j with GDS (a no-op when it runs); returns when Bolt and GDS answer."""
    from ..server.manager import start_server

    settings = settings_for(instance)
    began = time.monotonic()
    with console.status("Starting Neo4j (the first start assembles it from Maven Central)..."):
        status = start_server(settings)
    if as_json:
        print_json(status.model_dump())
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
    from ..server.manager import stop_server

    was_running = stop_server(settings_for(instance))
    console.print("Neo4j stopped." if was_running else "Neo4j was not running.")


@neo4j_app.command()
def status(instance: InstanceOpt = None, as_json: JsonOpt = False) -> None:
    """Whether Neo4j answers, its versions, and how clients connect (exit 1 when it is down)."""
    from ..server.manager import server_status

    st = server_status(settings_for(instance)).model_dump()
    render(st, ("key", "value"), ((k, v) for k, v in st.items() if v is not None), as_json, header=False)
    raise typer.Exit(0 if st["running"] else 1)


@neo4j_app.command()
def logs(
    instance: InstanceOpt = None,
    lines: Annotated[int, typer.Option("-n", "--lines", help="How many lines.")] = 100,
    follow: Annotated[bool, typer.Option("-f", "--follow", help="Keep printing new lines.")] = False,
) -> None:
    """The last lines of the managed server's log."""
    from ..server.manager import server_logs

    settings = settings_for(instance)
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
def init(
    instance: InstanceOpt = None,
    rebuild_fulltext: Annotated[bool, typer.Option(
        "--rebuild-fulltext", help="Build the full-text indexes anew: BM25 then forgets the nodes that re-indexing "
        "deleted (scores drift with them). Questions fail while it runs (seconds for 40 documents).")] = False,
) -> None:
    """Apply the BookIndex schema (constraints, vector and full-text indexes); wait until all are ONLINE."""
    with console.status("Rebuilding full-text indexes..." if rebuild_fulltext else "Applying schema..."):
        indexes = library(instance).apply_schema(rebuild_fulltext=rebuild_fulltext)
    console.print(f"[green]Schema applied[/]: {len(indexes)} indexes ONLINE.")


def doctor(instance: InstanceOpt = None, as_json: JsonOpt = False) -> None:
    """What is configured and working (Neo4j, GDS, vector indexes, models); exit 1 if Neo4j, GDS or a configured
    model fails."""
    from ..doctor import failures, run_doctor

    report = run_doctor(settings_for(instance))
    render({name: check.model_dump() for name, check in report.items()}, ("check", "ok", "detail"),
           ((name, "[green]yes[/]" if c.ok else "[red]no[/]", c.detail) for name, c in report.items()), as_json)
    raise typer.Exit(1 if failures(report) else 0)


COMMANDS = {"doctor": doctor}
