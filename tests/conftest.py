"""Test fixtures: a real Neo4j with GDS, never a mock.

With ``NEO4J_URI`` set, tests use that server (they only touch data whose ``doc_key`` starts with ``test-``).
Otherwise they start (or reuse) a managed server instance named ``test`` on ports 17687/17474 with a small
heap, separate from the ``default`` instance that ``make demo`` uses. It keeps running between test runs for
speed; ``make stop`` (or ``bookrag neo4j stop --instance test``) stops it, and ``.ci/run`` always does.

These fixtures serve both layers of the suite: ``tests/unit`` (no server: its conftest refuses ``neo4j_server``)
and ``tests/integration``. Code the tests share lives in ``tests/helpers``.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator

import pytest

from bookrag_neo4j.config import Settings
from bookrag_neo4j.graph.client import ConnectionInfo, GraphClient
from bookrag_neo4j.graph.schema import apply_schema
from bookrag_neo4j.index.pipeline import Indexer
from bookrag_neo4j.library.catalogue import delete_document
from bookrag_neo4j.llm import Models, index_dimensions
from bookrag_neo4j.server import ServerStatus, connection_info, start_server

from .helpers.pdfs import ACL_PAPER, need
from .helpers.server import external

TEST_PREFIX = "test-"


@pytest.fixture(scope="session")
def settings() -> Settings:
    if external():
        return Settings()
    return Settings(
        neo4j_instance=os.environ.get("BOOKRAG_TEST_INSTANCE", "test"),
        neo4j_bolt_port=int(os.environ.get("BOOKRAG_TEST_BOLT_PORT", "17687")),
        neo4j_http_port=int(os.environ.get("BOOKRAG_TEST_HTTP_PORT", "17474")),
        neo4j_heap="2g",
        neo4j_pagecache="1g",
        neo4j_runtime=os.environ.get("BOOKRAG_TEST_RUNTIME", "local"),
    )


@pytest.fixture(scope="session")
def neo4j_server(settings: Settings) -> ServerStatus:
    status = start_server(settings)
    assert status.running, status.detail
    return status


@pytest.fixture(scope="session")
def conn(settings: Settings, neo4j_server: ServerStatus) -> ConnectionInfo:
    return connection_info(settings)


@pytest.fixture
async def graph(conn: ConnectionInfo) -> AsyncIterator[GraphClient]:
    """A client per test; data of test documents (``doc_key`` starting with ``test-``) is removed after."""
    async with GraphClient(conn) as client:
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
async def schema(conn: ConnectionInfo, dimensions: int) -> list[dict]:
    async with GraphClient(conn) as client:
        return await apply_schema(client, dimensions=dimensions)


@pytest.fixture(scope="session")
def offline_models(settings: Settings) -> Models:
    """The models without an LLM (the offline embedder and reranker)."""
    return Models.from_settings(settings.model_copy(update={"llm_provider": "none"}))


@pytest.fixture(scope="session")
async def acl_paper(conn: ConnectionInfo, settings: Settings, offline_models: Models, schema) -> AsyncIterator[str]:
    """A 24-page ACL paper indexed once for the session, LLM-free and without its knowledge graph: the tree, the
    layout layer and the content graph (its key). A test that changes a layer rebuilds what it needs."""
    async with GraphClient(conn) as client:
        report = await Indexer(client, settings, offline_models, use_llm=False).index(need(ACL_PAPER), graph=False)
        assert report.layout is not None and report.layout.counts.passages > 0
        yield report.doc_key
        await delete_document(client, report.doc_key)
