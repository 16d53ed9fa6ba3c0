"""Which Neo4j the tests use: ``BOOKRAG_TEST_NEO4J`` (auto, testcontainers, managed, external), decided once a
session by :func:`bookrag_neo4j.testing.selected_backend`."""

from __future__ import annotations

from functools import cache


@cache
def server_backend() -> str:
    """The backend of this session: ``external`` with ``NEO4J_URI``, ``testcontainers`` where Docker answers,
    else ``managed`` (unless ``BOOKRAG_TEST_NEO4J`` says otherwise)."""
    # imported here: the conftest names bookrag_neo4j.testing in pytest_plugins, which must import it first
    from bookrag_neo4j.testing import selected_backend

    return selected_backend()


def external() -> bool:
    """The tests use a server they do not manage (``NEO4J_URI``, or a testcontainers container): they never start
    or stop it, nor open its Browser."""
    return server_backend() != "managed"
