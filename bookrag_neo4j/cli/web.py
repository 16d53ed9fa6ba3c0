"""``bookrag serve``: the web app (:mod:`bookrag_neo4j.web`) on uvicorn, loopback only unless a token is set, slow
clients cut off (:mod:`bookrag_neo4j.web.serving`)."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import InstanceOpt, console, settings_for


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on (beyond loopback only with a token).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    token: Annotated[str | None, typer.Option(
        help="Require this token on every request (default: BOOKRAG_SERVE_TOKEN); open the app with ?token=...",
        show_default=False)] = None,
    no_llm: Annotated[bool, typer.Option("--no-llm", help="Answer and index without an LLM.")] = False,
    browser: Annotated[str | None, typer.Option(help="Neo4j Browser URL for the Explore links.")] = None,
    allowed_host: Annotated[list[str] | None, typer.Option(
        "--allowed-host", metavar="HOST", help="Also answer requests addressed to this host name (repeatable; default: "
        "BOOKRAG_SERVE_ALLOWED_HOSTS). Loopback names always answer.")] = None,
    instance: InstanceOpt = None,
) -> None:
    """The library in a web page: upload and index PDFs, browse tables of contents, ask with any method and see
    each citation's page with the evidence boxed."""
    import uvicorn

    from ..web import create_app
    from ..web.security import check_bind
    from ..web.serving import server_config

    settings = settings_for(instance)
    token = token or (settings.serve.token.get_secret_value() if settings.serve.token else None)
    check_bind(host, token)
    app = create_app(settings, use_llm=not no_llm, browser=browser, token=token,
                     allowed_hosts=[host, *(allowed_host or [])])
    shown = f"[{host}]" if ":" in host else host
    console.print(f"bookrag serve: http://{shown}:{port}/" + ("?token=…  (the token you set)" if token else ""))
    uvicorn.Server(server_config(app, host=host, port=port)).run()


COMMANDS = {"serve": serve}
