"""A real Neo4j with GDS for tests, yours and bookrag-neo4j's own: a pytest plugin and a context manager.

Enable the plugin in your ``conftest.py`` (``pip install 'bookrag-neo4j[testing]'``) and ask for its session
fixture ``bookrag_neo4j``, a :class:`ServerForTests` (``.settings``, ``.conn``, ``.env()``):

    pytest_plugins = ["bookrag_neo4j.testing"]

    def test_gds_answers(bookrag_neo4j):
        rag = BookRAG(bookrag_neo4j.settings, use_llm=False)
        rag.apply_schema()
        assert rag.run_cypher("RETURN gds.version() AS v")[0]["v"]

``BOOKRAG_TEST_NEO4J`` picks the server (:func:`select_backend`): ``external`` (``NEO4J_URI``'s, never started or
stopped), ``testcontainers`` (a throw-away container of ``docker/compose.yml``'s image), ``managed`` (bookrag's
instance ``test``, kept running between runs), or ``auto`` (the default: the first of these that is available);
see docs/tests.md. Without pytest: ``with neo4j_for_tests() as server:``, then ``Neo4jClient(server.conn)``.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import re
import secrets
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

try:
    import pytest
except ImportError as exc:  # the module is a pytest plugin first
    raise ImportError("bookrag_neo4j.testing needs pytest: pip install 'bookrag-neo4j[testing]'") from exc

from .config import Settings
from .db.client import ConnectionInfo, ServerVersions
from .errors import ConfigurationError, ServerError, ServerStartError
from .resources import resource_dir
from .server import connection_info, start_server
from .server.docker import docker_engine_available
from .server.ready import probe, wait_until_ready

log = logging.getLogger(__name__)

Backend = Literal["external", "testcontainers", "managed"]
CHOICES = ("auto", "testcontainers", "managed", "external")
ENV_VAR = "BOOKRAG_TEST_NEO4J"


def select_backend(
    requested: str | None,
    *,
    uri_set: bool,
    docker_answers: Callable[[], bool],
    testcontainers_installed: Callable[[], bool],
) -> Backend:
    """The server the tests use, from ``BOOKRAG_TEST_NEO4J`` (``requested``), whether ``NEO4J_URI`` is set, and
    two probes called only when the answer depends on them. A choice that cannot be honoured is an error."""
    choice = (requested or "auto").strip().lower()
    if choice not in CHOICES:
        raise ConfigurationError(f"{ENV_VAR}={requested!r}: choose one of {', '.join(CHOICES)}")
    if choice == "external":
        if not uri_set:
            raise ConfigurationError(f"{ENV_VAR}=external needs NEO4J_URI (and NEO4J_USERNAME, NEO4J_PASSWORD)")
        return "external"
    if choice == "managed":
        return "managed"
    if choice == "testcontainers":
        if not docker_answers():
            raise ConfigurationError(
                f"{ENV_VAR}=testcontainers needs a Docker engine and none answers (`docker info` fails): start "
                f"Docker, or set {ENV_VAR}=managed for bookrag's local server")
        if not testcontainers_installed():
            raise ConfigurationError(
                f"{ENV_VAR}=testcontainers needs the testcontainers package: pip install 'bookrag-neo4j[testing]'")
        return "testcontainers"
    if uri_set:
        return "external"
    if docker_answers() and testcontainers_installed():
        return "testcontainers"
    return "managed"


def has_testcontainers() -> bool:
    """Whether testcontainers' Neo4j module can be imported (the ``testing`` extra)."""
    return importlib.util.find_spec("testcontainers") is not None and importlib.util.find_spec("docker") is not None


def selected_backend(env: Mapping[str, str] | None = None) -> Backend:
    """:func:`select_backend` for this process's environment, with the real probes."""
    env = os.environ if env is None else env
    return select_backend(env.get(ENV_VAR), uri_set=bool(env.get("NEO4J_URI")),
                          docker_answers=docker_engine_available, testcontainers_installed=has_testcontainers)


def managed_settings(env: Mapping[str, str] | None = None) -> Settings:
    """Settings of the managed test instance: ``test`` on 17687/17474 with a 2 GiB heap, never ``NEO4J_URI``;
    ``BOOKRAG_TEST_INSTANCE``, ``_BOLT_PORT``, ``_HTTP_PORT``, ``_HEAP``, ``_PAGECACHE``, ``_RUNTIME`` and
    ``_JVM_OPTIONS`` (extra JVM flags) change it."""
    env = os.environ if env is None else env
    return Settings(
        neo4j_uri=None,
        neo4j_instance=env.get("BOOKRAG_TEST_INSTANCE", "test"),
        neo4j_bolt_port=int(env.get("BOOKRAG_TEST_BOLT_PORT", "17687")),
        neo4j_http_port=int(env.get("BOOKRAG_TEST_HTTP_PORT", "17474")),
        neo4j_heap=env.get("BOOKRAG_TEST_HEAP", "2g"),
        neo4j_pagecache=env.get("BOOKRAG_TEST_PAGECACHE", "1g"),
        neo4j_runtime=env.get("BOOKRAG_TEST_RUNTIME", "local"),
        neo4j_jvm_options=env.get("BOOKRAG_TEST_JVM_OPTIONS", ""),
    )


@dataclass(frozen=True)
class ServerForTests:
    """The Neo4j a test session uses: how to connect (``conn``) and settings whose connection is that server."""

    __test__ = False  # not a test class, whatever pytest's name rules say

    backend: Backend
    conn: ConnectionInfo
    settings: Settings
    versions: ServerVersions
    container: Any = field(default=None, repr=False)  # the testcontainers Neo4jContainer, when there is one

    def env(self) -> dict[str, str]:
        """``NEO4J_URI``, ``NEO4J_USERNAME``, ``NEO4J_PASSWORD``, ``NEO4J_DATABASE``: for a ``bookrag`` subprocess."""
        return {"NEO4J_URI": self.conn.uri, "NEO4J_USERNAME": self.conn.username,
                "NEO4J_PASSWORD": self.conn.password, "NEO4J_DATABASE": self.conn.database}


@dataclass(frozen=True)
class ComposeService:
    """The image and the fixed environment (no ``${...}``) of the ``neo4j`` service in ``docker/compose.yml``."""

    image: str
    environment: dict[str, str]


def compose_service() -> ComposeService:
    """Read ``docker/compose.yml`` (the Docker runtime's file), so the container runs what ``bookrag neo4j
    start`` runs under Docker: the same image, the GDS plugin, its procedures unrestricted."""
    text = (resource_dir("docker") / "compose.yml").read_text(encoding="utf-8")
    image = re.search(r"^\s+image:\s*(\S+)\s*$", text, re.MULTILINE)
    block = re.search(r"^(\s+)environment:\s*\n((?:\1\s+.*\n)+)", text, re.MULTILINE)
    if image is None or block is None:
        raise ConfigurationError("docker/compose.yml has no neo4j image or environment")
    environment: dict[str, str] = {}
    for key, value in re.findall(r"^\s+(\w+):\s*(.+?)\s*$", block.group(2), re.MULTILINE):
        value = value[1:-1] if len(value) > 1 and value[0] == value[-1] and value[0] in "'\"" else value
        if "${" not in value:
            environment[key] = value
    return ComposeService(image=image.group(1), environment=environment)


def _neo4j_container_class() -> Any:
    try:
        from testcontainers.community.neo4j import Neo4jContainer  # testcontainers >= 4.14
    except ImportError:
        try:
            from testcontainers.neo4j import Neo4jContainer
        except ImportError as exc:
            raise ConfigurationError(
                "the testcontainers backend needs testcontainers: pip install 'bookrag-neo4j[testing]'") from exc
    return Neo4jContainer


def _log_tail(container: Any, lines: int = 40) -> str:
    try:
        out, err = container.get_logs()
    except Exception as exc:  # the logs only decorate an error message
        return f"(no logs: {exc})"
    return "\n".join((out + err).decode("utf-8", "replace").splitlines()[-lines:])


def container_running(container: Any) -> bool:
    """Whether a testcontainers container still exists and runs (or is starting)."""
    try:
        wrapped = container.get_wrapped_container()
        wrapped.reload()
        return wrapped.status in ("created", "running")
    except Exception:
        return False


def container_environment(settings: Settings) -> dict[str, str]:
    """The container's Neo4j settings: ``docker/compose.yml``'s (GDS plugin, procedures unrestricted) with the
    heap and page cache of ``settings``."""
    return {**compose_service().environment, "NEO4J_server_memory_heap_max__size": settings.neo4j.heap,
            "NEO4J_server_memory_pagecache_size": settings.neo4j.pagecache}


@contextmanager
def neo4j_container(settings: Settings | None = None, *, image: str | None = None) -> Iterator[ServerForTests]:
    """A throw-away Neo4j with GDS in Docker (testcontainers), removed on exit; ``settings`` gives its heap, page
    cache and start timeout (default: :func:`managed_settings`). Returns once ``RETURN gds.version()`` answers."""
    settings = settings or managed_settings()
    if not docker_engine_available():
        raise ServerError("the testcontainers backend needs a Docker engine and none answers (`docker info` fails)")
    image = image or compose_service().image
    password = secrets.token_urlsafe(18)
    neo4j_container_class = _neo4j_container_class()
    try:
        container = neo4j_container_class(image, username="neo4j", password=password)
    except Exception as exc:  # docker-py's errors: `docker info` answers but its client does not
        raise ServerStartError(f"testcontainers cannot reach the Docker engine: {exc}") from exc
    for key, value in container_environment(settings).items():
        container.with_env(key, value)
    log.info("starting %s in Docker (testcontainers); the image downloads the GDS plugin", image)
    try:
        container.start()
    except Exception as exc:  # docker-py and testcontainers raise their own types
        _stop(container)
        raise ServerStartError(f"the Neo4j container did not start: {exc}\n{_log_tail(container)}") from exc
    try:
        conn = ConnectionInfo(container.get_connection_url(), "neo4j", password, settings.neo4j.database)
        versions = wait_until_ready(conn, timeout=settings.neo4j.start_timeout,
                                    alive=lambda: container_running(container), log_tail=lambda: _log_tail(container))
        connected = Settings(neo4j_uri=conn.uri, neo4j_username=conn.username, neo4j_password=password,
                             neo4j_database=conn.database)
        yield ServerForTests("testcontainers", conn, connected, versions, container)
    finally:
        _stop(container)


def _stop(container: Any) -> None:
    try:
        container.stop()
    except Exception as exc:  # testcontainers' reaper removes it at exit all the same
        log.warning("could not remove the Neo4j container: %s", exc)


@contextmanager
def neo4j_for_tests(backend: Backend | None = None) -> Iterator[ServerForTests]:
    """The server ``backend`` names (default: :func:`selected_backend`), up with GDS for the ``with`` block. Only
    a container is removed after; a managed server keeps running, an external one is never touched."""
    backend = backend or selected_backend()
    if backend == "testcontainers":
        with neo4j_container() as server:
            yield server
        return
    if backend == "managed":
        settings = managed_settings()
        status = start_server(settings)
        if not status.running:
            raise ServerStartError(f"the managed test server did not start: {status.detail}")
    else:
        settings = Settings()
        if not settings.neo4j.uri:
            raise ConfigurationError("the external backend needs NEO4J_URI")
    conn = connection_info(settings)
    versions = probe(conn)
    if versions.gds_version is None:
        raise ServerError(f"the Neo4j at {conn.uri} has no Graph Data Science plugin, which bookrag-neo4j needs")
    yield ServerForTests(backend, conn, settings, versions)


@pytest.fixture(scope="session")
def bookrag_neo4j() -> Iterator[ServerForTests]:
    """A Neo4j with GDS for the session, chosen by ``BOOKRAG_TEST_NEO4J`` (see :mod:`bookrag_neo4j.testing`)."""
    with neo4j_for_tests() as server:
        yield server
