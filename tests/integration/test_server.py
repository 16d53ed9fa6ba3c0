"""The managed server's lifecycle on the real local runtime: status, stop, start, no-op start, stale pid."""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Iterator

import pytest

from bookrag_neo4j.config import Settings
from bookrag_neo4j.errors import ServerStartError
from bookrag_neo4j.server import server_status, start_server, stop_server
from bookrag_neo4j.server.local import LocalServer, pinned_versions

from ..helpers.server import external

pytestmark = pytest.mark.skipif(external(), reason="NEO4J_URI or testcontainers: the tests never start or stop that server")


def test_status_reports_versions(settings: Settings, neo4j_server) -> None:
    status = server_status(settings)
    assert status.running and status.mode in ("local", "docker")
    assert status.neo4j_version == pinned_versions()["neo4j"]
    assert status.gds_version == pinned_versions()["gds"]
    assert status.uri == f"bolt://localhost:{settings.neo4j_bolt_port}"
    mode = stat.S_IMODE(os.stat(status.password_file).st_mode)
    assert mode == 0o600


def test_port_in_use_is_a_clear_error(settings: Settings, neo4j_server, tmp_path) -> None:
    other = settings.model_copy(update={"neo4j_instance": "test-port-clash", "data_dir": tmp_path})
    with pytest.raises(ServerStartError, match=f"port {settings.neo4j_bolt_port} is already in use"):
        start_server(other)


@pytest.fixture
def restarted_after(settings: Settings, neo4j_server) -> Iterator[None]:
    """The test may stop the session's server: it runs again after the test, for the other tests."""
    yield
    start_server(settings)


@pytest.mark.server_lifecycle
def test_stop_start_and_noop_start(settings: Settings, restarted_after, monkeypatch: pytest.MonkeyPatch) -> None:
    server = LocalServer(settings)
    first_pid = server.pid()
    assert first_pid is not None
    with monkeypatch.context() as m:  # a second start is a no-op: it launches no process (whatever the time taken)
        def no_launch(*args, **kwargs):
            raise AssertionError(f"a start of a running server launched {args[0] if args else kwargs}")

        m.setattr(subprocess, "Popen", no_launch)
        again = start_server(settings)
    assert again.running and server.pid() == first_pid

    assert stop_server(settings) is True
    assert server.pid() is None
    assert not server_status(settings).running
    assert stop_server(settings) is False  # stopping twice is harmless

    server.pid_file.write_text("999999\n")  # a stale pid file from a crash
    status = start_server(settings)
    assert status.running and server.pid() not in (None, 999999)


def test_failed_start_reports_the_log_tail(settings: Settings, neo4j_server, tmp_path) -> None:
    broken = settings.model_copy(
        update={
            "neo4j_instance": "test-broken",
            "data_dir": tmp_path,
            "neo4j_bolt_port": 27687,
            "neo4j_http_port": 27474,
            "neo4j_heap": "1k",  # valid for Neo4j's config, too small for the JVM
            "neo4j_start_timeout": 300.0,  # the JVM exits at once; a busy machine only makes that slower
        }
    )
    with pytest.raises(ServerStartError, match="(?s)exited during start-up.*heap"):
        start_server(broken)
    assert LocalServer(broken).pid() is None  # nothing left running
