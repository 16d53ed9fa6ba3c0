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


def test_rows_are_read_as_the_model_of_their_columns_or_refused_naming_the_query() -> None:
    from bookrag_neo4j.db.client import KeyScore, typed_rows
    from bookrag_neo4j.db.schema import IndexInfo
    from bookrag_neo4j.errors import SchemaError

    assert typed_rows(KeyScore, "q", [{"key": "a", "score": 0.5}]) == [KeyScore("a", 0.5)]
    (index,) = typed_rows(IndexInfo, "schema/indexes", [{"name": "i", "type": "LOOKUP", "state": "ONLINE",
                                                         "labels": None, "properties": None, "dimensions": None}])
    assert index.labels == [] and index.state == "ONLINE"  # a pydantic model is validated
    for rows in ([{"key": "a"}], [{"key": "a", "score": 0.5, "extra": 1}]):
        with pytest.raises(SchemaError, match="'retrieval/lexical_nodes' returned rows that are not KeyScores"):
            typed_rows(KeyScore, "retrieval/lexical_nodes", rows)
    with pytest.raises(SchemaError, match="not IndexInfos"):
        typed_rows(IndexInfo, "schema/indexes", [{"name": "i"}])
