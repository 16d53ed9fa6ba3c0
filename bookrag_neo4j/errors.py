"""The package's exception hierarchy: every error bookrag-neo4j raises on purpose is a ``BookRAGError``.

Catch ``BookRAGError`` to handle all of them, or a subclass for one concern::

    try:
        rag.index("report.pdf")
    except Neo4jUnavailableError as exc:
        print("start Neo4j first:", exc)
"""

from __future__ import annotations


class BookRAGError(Exception):
    """Base class of every error raised by bookrag-neo4j."""


class ConfigurationError(BookRAGError):
    """Settings are missing or contradict each other."""


class ServerError(BookRAGError):
    """The managed Neo4j server could not be assembled, started, stopped or inspected."""


class ServerStartError(ServerError):
    """The server did not come up; the message carries the tail of its log."""


class Neo4jUnavailableError(BookRAGError):
    """Neo4j cannot be reached (not started, wrong URI or credentials, restarted mid-run)."""


class SchemaError(BookRAGError):
    """The database schema cannot be applied or does not match the configuration."""


class QueryNotFoundError(BookRAGError, KeyError):
    """A named Cypher query does not exist in ``cypher/``."""
