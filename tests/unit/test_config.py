"""Settings honour the usual Neo4j variables and the BOOKRAG_ prefix; connection resolution."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bookrag_neo4j.config import Settings
from bookrag_neo4j.errors import BookRAGError, ConfigurationError
from bookrag_neo4j.server import connection_info
from bookrag_neo4j.server.manager import resolve_mode


def test_standard_neo4j_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "neo4j+s://example.databases.neo4j.io")
    monkeypatch.setenv("NEO4J_USERNAME", "reader")
    monkeypatch.setenv("NEO4J_PASSWORD", "s3cret-pass")
    monkeypatch.setenv("NEO4J_DATABASE", "books")
    monkeypatch.setenv("BOOKRAG_NEO4J_HEAP", "3g")
    settings = Settings()
    assert settings.neo4j_heap == "3g"
    assert resolve_mode(settings) == "external"
    conn = connection_info(settings)
    assert (conn.uri, conn.username, conn.password, conn.database) == (
        "neo4j+s://example.databases.neo4j.io",
        "reader",
        "s3cret-pass",
        "books",
    )
    assert "s3cret" not in repr(conn) and "s3cret" not in repr(settings)


def test_managed_server_without_password_is_a_clear_error(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NEO4J_URI", raising=False)
    monkeypatch.delenv("NEO4J_PASSWORD", raising=False)
    settings = Settings(data_dir=tmp_path, neo4j_instance="nothing-here")
    with pytest.raises(ConfigurationError, match="bookrag neo4j start"):
        connection_info(settings)


def test_instance_names_are_path_safe() -> None:
    with pytest.raises(ValidationError):
        Settings(neo4j_instance="../etc")


def test_one_exception_hierarchy() -> None:
    from bookrag_neo4j import errors

    classes = [c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, Exception)]
    assert all(issubclass(c, BookRAGError) for c in classes)
