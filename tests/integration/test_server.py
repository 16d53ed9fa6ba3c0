"""The managed server's lifecycle on the real local runtime: status, stop, start, no-op start, stale pid."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import threading
import time

import pytest

from bookrag_neo4j.config import Settings
from bookrag_neo4j.errors import ServerStartError
from bookrag_neo4j.server import server_status, start_server, stop_server
from bookrag_neo4j.server.local import LocalServer, pinned_versions

from ..helpers.server import external
from ..helpers.webapp import free_port

pytestmark = pytest.mark.skipif(external(), reason="NEO4J_URI or testcontainers: the tests never start or stop that server")


def test_status_reports_versions(settings: Settings, neo4j_server) -> None:
    status = server_status(settings)
    assert status.running and status.mode in ("local", "docker")
    assert status.neo4j_version == pinned_versions()["neo4j"]
    assert status.gds_version == pinned_versions()["gds"]
    assert status.uri == f"bolt://localhost:{settings.neo4j.bolt_port}"
    mode = stat.S_IMODE(os.stat(status.password_file).st_mode)
    assert mode == 0o600


def test_port_in_use_is_a_clear_error(settings: Settings, neo4j_server, tmp_path) -> None:
    other = settings.replace(neo4j_instance="test-port-clash", data_dir=tmp_path)
    try:
        with pytest.raises(ServerStartError, match=f"port {settings.neo4j.bolt_port} is already in use"):
            start_server(other)
    finally:
        stop_server(other)  # where the session's server was gone, this one started: it must not take its ports


@pytest.mark.server_lifecycle
def test_stop_start_and_noop_start(settings: Settings, neo4j_server, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second start launches nothing; stop is harmless twice; a stale pid file is ignored; a start that finds the
    server's process still alive, ending, does not wait on it for ``neo4j_start_timeout`` and fail, but starts a new
    one once it has gone."""
    import sys

    from bookrag_neo4j.server.local import ENTRY_POINT

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
    assert server.pid() is None
    dying = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", ENTRY_POINT,
                              f"--home-dir={server.home}"], stderr=subprocess.PIPE)  # looks like the server to `pid()`
    try:
        for _ in range(50):  # seen as the server once its process shows its command line
            server.pid_file.write_text(f"{dying.pid}\n")
            if server.pid() == dying.pid:
                break
            time.sleep(0.1)
        else:
            exited = dying.poll()
            pytest.fail(f"the stand-in server (pid {dying.pid}) is not seen as the server: exit {exited}, "
                        f"{dying.stderr.read().decode()[-500:] if exited is not None and dying.stderr else ''}")
        threading.Timer(3.0, dying.kill).start()  # it dies 3 s into the start that waits for it (not before: load)
        status = start_server(settings)
        assert status.running and server.pid() not in (None, 999999, dying.pid)
    finally:
        dying.kill()
        dying.wait()


def test_failed_start_reports_the_log_tail(settings: Settings, neo4j_server, tmp_path) -> None:
    broken = settings.replace(
        neo4j_instance="test-broken",
        data_dir=tmp_path,
        neo4j_bolt_port=free_port(),  # free ports: a user's own instance may hold any fixed one
        neo4j_http_port=free_port(),
        neo4j_heap="1k",  # valid for Neo4j's config, too small for the JVM
        neo4j_start_timeout=300.0,  # the JVM exits at once; a busy machine only makes that slower
    )
    with pytest.raises(ServerStartError, match="(?s)exited during start-up.*heap"):
        start_server(broken)
    assert LocalServer(broken).pid() is None  # nothing left running


def test_the_managed_server_runs_hardened(settings: Settings, neo4j_server) -> None:
    """Defence in depth beside the gate: even a direct admin session cannot fetch loopback or private URLs or
    read files with LOAD CSV, and every transaction has a memory limit and a timeout (README, "Reliability and
    security")."""
    from neo4j import GraphDatabase
    from neo4j.exceptions import ClientError, TransientError

    from bookrag_neo4j.server import connection_info

    conn = connection_info(settings)
    with GraphDatabase.driver(conn.uri, auth=(conn.username, conn.password)) as driver, driver.session() as s:
        found = {r["name"]: r["value"] for r in s.run(
            "SHOW SETTINGS YIELD name, value WHERE name IN $names RETURN name, value",
            names=["db.memory.transaction.max", "db.transaction.timeout", "dbms.security.procedures.allowlist",
                   "dbms.security.http_access_control_allow_origin",
                   "dbms.security.allow_csv_import_from_file_urls"])}
        assert found["db.memory.transaction.max"] not in ("0", "0B", "0.00B")
        assert found["db.transaction.timeout"] not in ("0", "0s", "PT0S")
        assert found["dbms.security.procedures.allowlist"] == "gds.*,bookrag.*"
        assert found["dbms.security.http_access_control_allow_origin"] == f"http://localhost:{settings.neo4j.http_port}"
        assert found["dbms.security.allow_csv_import_from_file_urls"] == "false"
        for url in (f"http://127.0.0.1:{settings.neo4j.http_port}/", "http://169.254.169.254/", "http://10.0.0.1/",
                    "file:///etc/passwd"):
            with pytest.raises(ClientError, match="blocked|allow_csv_import_from_file_urls"):
                s.run("LOAD CSV FROM $url AS row RETURN row LIMIT 1", url=url).consume()
        with pytest.raises(TransientError, match="db.memory.transaction.max"):
            s.run("UNWIND range(1, 100000000) AS x WITH collect(x) AS xs RETURN size(xs)").consume()
        assert s.run("RETURN 1 AS one").single()["one"] == 1  # the server lives on


@pytest.mark.server_lifecycle
def test_a_named_instance_remembers_its_ports_and_memory(settings: Settings, neo4j_server, tmp_path) -> None:
    """`status`, `logs` and `stop --instance NAME` work from a shell without the environment that started it; a
    password that begins with "-" reaches neo4j-admin as a password, not as an option."""
    from pydantic import SecretStr

    from ..helpers.cli import BOOKRAG

    bolt, http = free_port(), free_port()
    other = settings.replace(neo4j_instance="test-second", data_dir=tmp_path, neo4j_bolt_port=bolt, neo4j_http_port=http,
                             neo4j_heap="768m", neo4j_pagecache="64m", neo4j_password=SecretStr("-starts-with-a-dash"))
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("BOOKRAG_NEO4J", "NEO4J_"))}
    clean["BOOKRAG_DATA_DIR"] = str(tmp_path)
    try:
        assert start_server(other).running

        def cli(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run([BOOKRAG, "neo4j", *args, "--instance", "test-second"], env=clean,
                                  capture_output=True, text=True, timeout=300, check=False)

        status = json.loads(cli("status", "--json").stdout)
        assert status["running"] is True and status["uri"] == f"bolt://localhost:{bolt}", status
        assert (status["heap"], status["pagecache"]) == ("768m", "64m")
        assert status["browser_url"] == f"http://localhost:{http}/browser/"
        assert f":{bolt}" in cli("logs").stdout  # the instance's own log: "Bolt enabled on localhost:<bolt>."
        stopped = cli("stop")
        assert stopped.returncode == 0, stopped.stderr
        assert LocalServer(other).pid() is None and not server_status(other).running
    finally:
        stop_server(other)
