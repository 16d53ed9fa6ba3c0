"""Named queries: every query file in cypher/ compiles on the real server. (The loader and the splitter:
``tests/unit/test_queries.py``.)"""

from __future__ import annotations

import pytest

from bookrag_neo4j.db.client import Neo4jClient
from bookrag_neo4j.db.queries import load_query, split_statements
from bookrag_neo4j.resources import resource_dir

QUERY_NAMES = sorted(
    str(p.relative_to(resource_dir("cypher")).with_suffix("")) for p in resource_dir("cypher").rglob("*.cypher")
)


@pytest.mark.parametrize("name", [n for n in QUERY_NAMES if n.rsplit("/", 1)[-1] != "schema"])  # multi-statement
async def test_every_named_query_compiles(db: Neo4jClient, name: str) -> None:
    (query,) = split_statements(load_query(name))
    if query.upper().startswith(("SHOW", "CALL DB.AWAITINDEXES")):  # cannot be EXPLAINed; harmless to run
        # $seconds: how long db.awaitIndexes may wait for indexes still populating (minutes on a busy machine)
        await db.run(query, {"seconds": 300})
    else:
        await db.run("EXPLAIN " + query)
