"""Unit tests run without Neo4j (``pytest tests/unit``: seconds, no server): a test here that asks for the
server, directly or through ``conn``, ``graph`` or ``schema``, fails and belongs in ``tests/integration``."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def neo4j_server() -> None:
    pytest.fail("a unit test asked for the Neo4j server: move it to tests/integration")
