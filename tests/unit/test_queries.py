"""Named queries: the loader and the statement splitter. (Every query file compiling on the real server:
``tests/integration/test_queries.py``.)"""

from __future__ import annotations

import pytest

from bookrag_neo4j.db.queries import load_query, split_statements
from bookrag_neo4j.db.schema import schema_statements
from bookrag_neo4j.errors import QueryNotFoundError


def test_loader_finds_and_rejects() -> None:
    assert "gds.version()" in load_query("server/gds_version")
    with pytest.raises(QueryNotFoundError):
        load_query("no/such/query")
    with pytest.raises(QueryNotFoundError):
        load_query("../pyproject")


def test_split_statements_drops_comments() -> None:
    text = "// a comment; with a semicolon\nCREATE (a);\n\nMATCH (n)\nRETURN n;\n"
    assert split_statements(text) == ["CREATE (a)", "MATCH (n)\nRETURN n"]
    assert all(s.startswith("CREATE") for s in schema_statements())
