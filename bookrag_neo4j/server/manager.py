"""Which Neo4j bookrag-neo4j uses, and its lifecycle: ``start_server``, ``stop_server``, ``server_status``.

    status = start_server(Settings())        # blocks until Bolt and GDS answer
    conn = connection_info(Settings())       # -> ConnectionInfo for Neo4jClient

Resolution order, decided at start: ``NEO4J_URI`` where set (Aura, a cluster, anything; nothing is started); else
``docker/compose.yml`` where a Docker engine answers (Neo4j Community with the GDS plugin); else a local server
assembled from Maven Central (:mod:`.local`). ``BOOKRAG_NEO4J_RUNTIME=docker|local`` skips the detection. The mode,
ports and memory are remembered in the instance folder (``state.json``), so later commands on the instance (``status``,
``stop``, ``logs``, any client) find the server ``start`` started without its environment; an explicit setting
(``BOOKRAG_NEO4J_BOLT_PORT=...``) still wins.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from ..config import Settings
from ..db.client import ConnectionInfo, ServerVersions
from ..errors import BookRAGError, ConfigurationError
from .docker import DockerServer, docker_engine_available
from .local import LocalServer
from .password import managed_connection
from .ready import probe
from .status import Mode, ServerStatus

log = logging.getLogger(__name__)


def _state_file(settings: Settings) -> Path:
    return settings.instance_dir / "state.json"


# What an instance remembers of its start, besides its mode.
RECORDED = ("neo4j_bolt_port", "neo4j_http_port", "neo4j_heap", "neo4j_pagecache", "neo4j_transaction_memory",
            "neo4j_transaction_timeout")


def _state(settings: Settings) -> dict[str, object]:
    try:
        state = json.loads(_state_file(settings).read_text())
    except (FileNotFoundError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def _recorded_mode(settings: Settings) -> Mode | None:
    mode = _state(settings).get("mode")
    return mode if mode in ("docker", "local") else None


def instance_settings(settings: Settings) -> Settings:
    """``settings`` with the managed instance's recorded ports and memory in place of the defaults (not of
    values given explicitly, in the environment or by argument). Unchanged for an external server."""
    if settings.neo4j.uri:
        return settings
    state = _state(settings)
    given = settings.given()
    update = {name: state[name] for name in RECORDED if name in state and name not in given}
    return settings.replace(**update) if update else settings


def _record(settings: Settings, mode: Mode) -> None:
    path = _state_file(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {"mode": mode, **{name: settings.get(name) for name in RECORDED}}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=2) + "\n")
    tmp.replace(path)


def resolve_mode(settings: Settings, *, for_start: bool = False) -> Mode:
    """The runtime to use: external, docker or local (see the module docstring)."""
    if settings.neo4j.uri:
        return "external"
    if settings.neo4j.runtime != "auto":
        return settings.neo4j.runtime
    recorded = _recorded_mode(settings)
    if recorded in ("docker", "local") and not (for_start and recorded == "docker" and not docker_engine_available()):
        return recorded
    return "docker" if docker_engine_available() else "local"


def _runtime(settings: Settings, mode: Mode) -> LocalServer | DockerServer:
    return DockerServer(settings) if mode == "docker" else LocalServer(settings)


def connection_info(settings: Settings) -> ConnectionInfo:
    """How to connect: ``NEO4J_*`` for an external server, else the managed server's port and password file."""
    settings = instance_settings(settings)
    if settings.neo4j.uri:
        password = settings.neo4j.password.get_secret_value() if settings.neo4j.password else ""
        return ConnectionInfo(settings.neo4j.uri, settings.neo4j.username, password, settings.neo4j.database)
    return managed_connection(settings)


def start_server(settings: Settings) -> ServerStatus:
    """Make sure a server is up (a no-op when it already is) and return its status."""
    settings = instance_settings(settings)
    mode = resolve_mode(settings, for_start=True)
    if mode == "external":
        return server_status(settings)
    versions = _runtime(settings, mode).start()
    _record(settings, mode)
    return _status(settings, mode, versions)


def stop_server(settings: Settings) -> bool:
    """Stop the managed server; returns whether one was running. An external server is never stopped."""
    settings = instance_settings(settings)
    mode = resolve_mode(settings)
    if mode == "external":
        log.info("NEO4J_URI is set: bookrag-neo4j does not stop external servers")
        return False
    return _runtime(settings, mode).stop()


def server_status(settings: Settings) -> ServerStatus:
    """Whether the server answers, with its versions and how to connect."""
    settings = instance_settings(settings)
    mode = resolve_mode(settings)
    runtime = None if mode == "external" else _runtime(settings, mode)
    versions: ServerVersions | None = None
    detail: str | None = None
    if runtime is None or runtime.is_running():
        try:
            versions = probe(connection_info(settings))
        except BookRAGError as exc:
            detail = str(exc)
    else:
        detail = "not running: start it with `bookrag neo4j start`"
    return _status(settings, mode, versions, detail)


def _status(settings: Settings, mode: Mode, versions: ServerVersions | None, detail: str | None = None) -> ServerStatus:
    managed = mode != "external"
    try:
        conn = connection_info(settings)
        uri, username = conn.uri, conn.username
    except ConfigurationError:
        uri, username = f"bolt://localhost:{settings.neo4j.bolt_port}", "neo4j"
    pid = LocalServer(settings).pid() if mode == "local" else None
    return ServerStatus(
        running=versions is not None,
        mode=mode,
        uri=uri,
        username=username,
        password_file=str(settings.password_file) if managed else None,
        database=settings.neo4j.database,
        neo4j_version=versions.neo4j_version if versions else None,
        gds_version=versions.gds_version if versions else None,
        browser_url=f"http://localhost:{settings.neo4j.http_port}/browser/" if managed else None,
        pid=pid,
        home=str(settings.instance_dir) if managed else None,
        heap=settings.neo4j.heap if managed else None,
        pagecache=settings.neo4j.pagecache if managed else None,
        detail=detail,
    )


def server_logs(settings: Settings, lines: int = 100) -> str:
    """The last lines of the managed server's log."""
    settings = instance_settings(settings)
    mode = resolve_mode(settings)
    if mode == "external":
        return "NEO4J_URI is set: the external server's logs are not available to bookrag-neo4j"
    return _runtime(settings, mode).log_tail(lines)
