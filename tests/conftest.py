"""Test fixtures: a real Neo4j with GDS, never a mock.

Which server is the choice of ``BOOKRAG_TEST_NEO4J`` (the package's own test plugin,
:mod:`bookrag_neo4j.testing`, decides; ``auto`` by default). With ``NEO4J_URI`` set, tests use that server (they
only touch data whose ``doc_key`` starts with ``test-``). Else, where a Docker engine answers, a throw-away
``neo4j:5.26`` container with GDS (testcontainers), removed after the session. Otherwise they start (or reuse) a
managed server instance named ``test`` on ports 17687/17474 with a small heap, separate from the ``default``
instance that ``make demo`` uses. It keeps running between test runs for speed; ``make stop`` (or
``bookrag neo4j stop --instance test``) stops it, and ``.ci/run`` always does.

These fixtures serve both layers of the suite: ``tests/unit`` (no server: its conftest refuses ``neo4j_server``)
and ``tests/integration``. Code the tests share lives in ``tests/helpers``.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING

import pytest

from bookrag_neo4j.config import Settings
from bookrag_neo4j.db.client import ConnectionInfo, Neo4jClient
from bookrag_neo4j.db.schema import apply_schema
from bookrag_neo4j.index.pipeline import Indexer
from bookrag_neo4j.library.catalogue import delete_document
from bookrag_neo4j.llm import Models, index_dimensions
from bookrag_neo4j.server import ServerStatus, connection_info, start_server

from .helpers.pdfs import ACL_PAPER, need
from .helpers.server import server_backend

if TYPE_CHECKING:  # pytest_plugins imports the module itself (an earlier import would escape assertion rewriting)
    from bookrag_neo4j.testing import ServerForTests

pytest_plugins = ["bookrag_neo4j.testing"]  # the `bookrag_neo4j` fixture: the testcontainers backend

TEST_PREFIX = "test-"


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist (``make test`` runs two workers) each worker after the first has a managed test instance of
    its own, ``<instance>-gwN`` on ports 10·N above the first's: a worker's clean-up, emptying or restart of its
    server never reaches a test of another. Set before any fixture reads the settings; ``bookrag`` subprocesses
    inherit it."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    number = int(worker.removeprefix("gw") or 0)
    if number == 0:
        return
    if server_backend() == "external":
        raise pytest.UsageError("one external server (NEO4J_URI) cannot serve several workers: run without -n")
    os.environ["BOOKRAG_TEST_INSTANCE"] = f"{os.environ.get('BOOKRAG_TEST_INSTANCE', 'test')}-{worker}"
    for name, first in (("BOOKRAG_TEST_BOLT_PORT", 17687), ("BOOKRAG_TEST_HTTP_PORT", 17474)):
        os.environ[name] = str(int(os.environ.get(name, first)) + 10 * number)


@pytest.fixture(scope="session")
def settings(request: pytest.FixtureRequest) -> Iterator[Settings]:
    """The settings of the session's server. Nothing starts here, except a testcontainers container (its address
    is known once it runs); ``bookrag`` subprocesses reach it through ``NEO4J_*`` in the environment."""
    from bookrag_neo4j.testing import managed_settings

    backend = server_backend()
    with pytest.MonkeyPatch.context() as env:
        if backend == "external":
            yield Settings()
        elif backend == "testcontainers":
            server: ServerForTests = request.getfixturevalue("bookrag_neo4j")
            for name, value in server.env().items():
                env.setenv(name, value)
            yield server.settings
        else:
            env.delenv("NEO4J_URI", raising=False)  # BOOKRAG_TEST_NEO4J=managed wins over NEO4J_URI
            yield managed_settings()


@pytest.fixture(scope="session")
def neo4j_server(settings: Settings) -> ServerStatus:
    """The session's server, running. The managed ``test`` instance outlives sessions, so a session starts by
    emptying it: what a session that died midway left there (a killed server, a test without its clean-up) cannot
    reach into this one. A testcontainers container starts empty; an external server keeps its data."""
    status = start_server(settings)
    assert status.running, status.detail
    if server_backend() == "managed":
        async def empty() -> None:
            async with Neo4jClient(connection_info(settings)) as client:
                while (await client.run("MATCH (n) WITH n LIMIT 5000 DETACH DELETE n RETURN count(*) AS n"))[0]["n"]:
                    pass

        asyncio.run(empty())
    return status


@pytest.fixture(autouse=True)
def server_running_after(request: pytest.FixtureRequest) -> Iterator[None]:
    """A ``server_lifecycle`` test may stop or kill the session's server: it runs again after the test, whatever
    the test's outcome, so that one failure there does not fail every test after it."""
    if request.node.get_closest_marker("server_lifecycle") is None:
        yield
        return
    settings = request.getfixturevalue("settings")
    yield
    start_server(settings)


@pytest.fixture(scope="session")
def conn(settings: Settings, neo4j_server: ServerStatus) -> ConnectionInfo:
    return connection_info(settings)


@pytest.fixture
async def db(conn: ConnectionInfo) -> AsyncIterator[Neo4jClient]:
    """A client per test; data of test documents (``doc_key`` starting with ``test-``) is removed after."""
    async with Neo4jClient(conn) as client:
        yield client
        await client.run(
            "MATCH (n) WHERE n.doc_key STARTS WITH $prefix OR (n:Document AND n.key STARTS WITH $prefix) DETACH DELETE n",
            {"prefix": TEST_PREFIX},
        )


@pytest.fixture(scope="session")
def dimensions(settings: Settings) -> int:
    """The vector-index dimension: the configured embedder's (384 for the offline default)."""
    return index_dimensions(settings)


@pytest.fixture(scope="session")
async def schema(conn: ConnectionInfo, dimensions: int) -> list:
    async with Neo4jClient(conn) as client:
        return await apply_schema(client, dimensions=dimensions)


@pytest.fixture(scope="session")
def offline_models(settings: Settings) -> Models:
    """The models without an LLM (the offline embedder and reranker)."""
    return Models.from_settings(settings.replace(llm_provider="none"))


@pytest.fixture(scope="session")
async def acl_paper(conn: ConnectionInfo, settings: Settings, offline_models: Models, schema) -> AsyncIterator[str]:
    """A 24-page ACL paper indexed once for the session, LLM-free and without its knowledge graph: the tree, the
    layout layer and the content graph (its key). A test that changes a layer rebuilds what it needs."""
    async with Neo4jClient(conn) as client:
        report = await Indexer(client, settings, offline_models, use_llm=False).index(need(ACL_PAPER), knowledge_graph=False)
        assert report.layout is not None and report.layout.counts.passages > 0
        yield report.doc_key
        await delete_document(client, report.doc_key)
