"""Named queries: the loader, and every query file in cypher/ compiles on the real server."""

from __future__ import annotations

import pytest

from bookrag_neo4j.errors import QueryNotFoundError
from bookrag_neo4j.graph.client import GraphClient
from bookrag_neo4j.graph.queries import load_query, split_statements
from bookrag_neo4j.graph.schema import schema_statements
from bookrag_neo4j.resources import resource_dir

QUERY_NAMES = sorted(
    str(p.relative_to(resource_dir("cypher")).with_suffix("")) for p in resource_dir("cypher").rglob("*.cypher")
)


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


@pytest.mark.parametrize("name", [n for n in QUERY_NAMES if n != "schema"])
async def test_every_named_query_compiles(graph: GraphClient, name: str) -> None:
    (query,) = split_statements(load_query(name))
    if query.upper().startswith(("SHOW", "CALL DB.AWAITINDEXES")):  # cannot be EXPLAINed; harmless to run
        await graph.run(query, {"seconds": 10})
    else:
        await graph.run("EXPLAIN " + query)
