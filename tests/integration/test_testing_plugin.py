"""The pytest plugin the package ships (``bookrag_neo4j.testing``), the way a user runs it: the README's example
of a user's own test, in a folder of its own, run by pytest in a subprocess on the test server; the managed
backend on the running test instance; and, where a Docker engine answers, a throw-away container with GDS."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bookrag_neo4j import BookRAG, Settings
from bookrag_neo4j.db.client import ConnectionInfo
from bookrag_neo4j.server.docker import docker_engine_available
from bookrag_neo4j.testing import container_running, neo4j_for_tests

from ..helpers.server import external
from ..helpers.timeouts import HANG

# The README's example ("Testing your own code against Neo4j"), file by file.
USER_CONFTEST = 'pytest_plugins = ["bookrag_neo4j.testing"]\n'
USER_TEST = '''\
from bookrag_neo4j import BookRAG


def test_my_library_on_a_real_neo4j(bookrag_neo4j):
    rag = BookRAG(bookrag_neo4j.settings, use_llm=False)
    indexes = rag.apply_schema()                # constraints, vector and full-text indexes
    assert all(index.state == "ONLINE" for index in indexes)
    assert rag.run_cypher("RETURN gds.version() AS gds")[0]["gds"].startswith("2.")
    print("backend:", bookrag_neo4j.backend, "at", bookrag_neo4j.conn.uri)
'''

DOCKER = docker_engine_available()


def users_pytest(folder: Path, *options: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``pytest`` in a user's folder (outside this repository, so none of its conftest applies)."""
    (folder / "conftest.py").write_text(USER_CONFTEST)
    (folder / "test_mine.py").write_text(USER_TEST)
    base = {k: v for k, v in os.environ.items() if not k.startswith(("BOOKRAG_TEST_", "NEO4J_", "PYTEST_"))}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *options, str(folder)]
    return subprocess.run(command, cwd=folder, env={**base, "BOOKRAG_LLM_PROVIDER": "none", **env},
                          capture_output=True, text=True, timeout=HANG, check=False)


def test_a_users_test_runs_on_the_shipped_fixture(conn: ConnectionInfo, dimensions: int, tmp_path: Path) -> None:
    # the test server, given the way a user gives their own server; the dimension given spares loading the embedder
    proc = users_pytest(tmp_path, "-s", BOOKRAG_TEST_NEO4J="external", BOOKRAG_EMBEDDING_DIMENSIONS=str(dimensions),
                        NEO4J_URI=conn.uri, NEO4J_USERNAME=conn.username, NEO4J_PASSWORD=conn.password,
                        NEO4J_DATABASE=conn.database)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "1 passed" in output, output
    assert f"backend: external at {conn.uri}" in output


@pytest.mark.skipif(external(), reason="the managed backend is this session's server only when the suite manages it")
def test_the_managed_backend_reuses_the_running_test_instance(settings: Settings, conn: ConnectionInfo,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"INSTANCE": settings.neo4j.instance, "BOLT_PORT": str(settings.neo4j.bolt_port),
                        "HTTP_PORT": str(settings.neo4j.http_port), "RUNTIME": settings.neo4j.runtime}.items():
        monkeypatch.setenv(f"BOOKRAG_TEST_{name}", value)
    with neo4j_for_tests("managed") as server:  # running already: start is a no-op
        assert (server.backend, server.conn, server.container) == ("managed", conn, None)
        assert server.versions.gds_version and server.settings.neo4j.uri is None
        assert server.env()["NEO4J_URI"] == conn.uri


@pytest.mark.slow
@pytest.mark.skipif(not DOCKER, reason="the testcontainers backend needs a Docker engine, and none answers here")
def test_a_throwaway_container_with_gds() -> None:
    with neo4j_for_tests("testcontainers") as server:
        assert server.backend == "testcontainers" and server.settings.neo4j.uri == server.conn.uri
        assert server.versions.neo4j_version.startswith("5.26") and server.versions.gds_version
        rag = BookRAG(server.settings, use_llm=False)
        assert rag.apply_schema()
        assert rag.documents() == []  # a fresh database
        assert rag.run_cypher("RETURN gds.version() AS gds") == [{"gds": server.versions.gds_version}]
        container = server.container
        assert container_running(container)
    assert not container_running(container)  # removed after the block
