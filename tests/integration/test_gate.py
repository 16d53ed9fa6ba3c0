"""The read-only gate against the real server: a table of hostile queries, each refused before it runs with
:class:`QueryRefusedError` naming the reason, after which nothing changed (no ``Intruder`` node, no new GDS
catalog graph, the server still answers); a table of allowed queries, each runs and returns what it should;
and the row cap. (The plan walk alone, without a server: ``tests/unit/test_gate.py``.)"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from bookrag_neo4j.config import Settings
from bookrag_neo4j.db.client import Neo4jClient
from bookrag_neo4j.errors import QueryRefusedError, UserQueryError
from bookrag_neo4j.llm import Models
from bookrag_neo4j.sdk import BookRAG

DOC = "test-gate"
UNPLANNABLE = "the server refused to plan this query"

GROWN = "replace(replace(replace(replace('" + "x" * 10 + "', 'x', '" + "x" * 10 + "'), 'x', '" + "x" * 10 + "'), 'x', '" \
    + "x" * 10 + "'), 'x', '" + "x" * 1000 + "')"  # 100 million characters, built inside one row

# (query, parameters, what the refusal must say: a regular expression)
HOSTILE: list[tuple[str, dict[str, Any], str]] = [
    # GDS procedures plan as reads but fill the heap or change the catalog
    ("CALL gds.graph.generate('g', 30000000, 20)", {}, "procedure gds.graph.generate is not allowed"),
    ("CALL gds.graph.project('x', '*', '*')", {}, "procedure gds.graph.project is not allowed"),
    ("CALL gds.graph.project.cypher('x', 'MATCH (n) RETURN id(n) AS id', "
     "'MATCH (a)-->(b) RETURN id(a) AS source, id(b) AS target')", {}, "procedure gds.graph.project.cypher"),
    ("CALL gds.graph.export('x', {dbName: 'intruder'})", {}, "procedure gds.graph.export is not allowed"),
    ("CALL gds.pageRank.mutate('x', {mutateProperty: 'pr'})", {}, "procedure gds.pageRank.mutate is not allowed"),
    ("CALL gds.graph.drop('x')", {}, "procedure gds.graph.drop is not allowed"),
    ("CALL gds.graph.list()", {}, "procedure gds.graph.list is not allowed"),
    ("CALL gds.graph.list() YIELD graphName RETURN graphName", {}, "procedure gds.graph.list is not allowed"),
    ("MATCH (s)-->(t) RETURN gds.graph.project('intruder', s, t)", {}, "function gds.graph.project is not allowed"),
    ("WITH 1 AS x CALL { WITH x CALL gds.graph.drop('x') YIELD graphName RETURN graphName } RETURN graphName", {},
     "procedure gds.graph.drop"),
    # a procedure hidden in an expression subquery: it shows only in another operator's Details
    ("RETURN reduce(a = 0, x IN [1] | a + COUNT { CALL gds.graph.drop('x') YIELD graphName RETURN graphName }) AS n",
     {}, "procedure gds.graph.drop"),
    ("MATCH (n) WHERE n.x = 1 OR EXISTS { CALL gds.graph.drop('x') YIELD graphName RETURN graphName } RETURN n", {},
     "procedure gds.graph.drop"),
    # commands
    ("TERMINATE TRANSACTIONS 'neo4j-transaction-1'", {}, "TERMINATE TRANSACTIONS is not allowed"),
    ("TERMINATE TRANSACTIONS 'neo4j-transaction-1' YIELD message RETURN message", {}, "TERMINATE TRANSACTIONS"),
    ("SHOW TRANSACTIONS", {}, "SHOW TRANSACTIONS is not allowed"),
    ("SHOW SETTINGS", {}, "SHOW SETTINGS is not allowed"),
    ("SHOW USERS", {}, "administration commands"),
    ("SHOW DATABASES", {}, "administration commands"),
    ("CREATE USER intruder SET PASSWORD 'intruder-password'", {}, "administration commands"),
    ("CREATE DATABASE intruder", {}, f"{UNPLANNABLE}.*UnsupportedAdministrationCommand"),
    # server-side request forgery and file reads
    ("LOAD CSV FROM 'http://127.0.0.1:7474/' AS row RETURN row", {}, "LOAD CSV is not allowed"),
    ("LOAD CSV FROM 'file:///etc/passwd' AS r RETURN r", {}, "LOAD CSV is not allowed"),
    ("LOAD CSV FROM $url AS r RETURN r", {"url": "http://169.254.169.254/"}, "LOAD CSV is not allowed"),
    ("MATCH (n) CALL { WITH n LOAD CSV FROM 'file:///etc/passwd' AS r RETURN r } RETURN r", {}, "LOAD CSV"),
    ("RETURN reduce(a = 0, x IN [1] | a + COUNT { LOAD CSV FROM 'file:///etc/passwd' AS r RETURN r }) AS n", {},
     "LOAD CSV is not allowed"),
    # other databases
    ("USE system SHOW DATABASES", {}, f"{UNPLANNABLE}.*USE"),
    ("USE system MATCH (n) RETURN n", {}, UNPLANNABLE),
    ("USE system CALL db.labels()", {}, "database 'system' are not allowed"),
    ("USE system CALL dbms.components()", {}, "procedure dbms.components is not allowed"),
    ("CALL { USE system CALL db.labels() YIELD label RETURN label } RETURN label", {}, f"{UNPLANNABLE}.*graph"),
    ("USE graph.byName('system') CALL db.labels()", {}, f"{UNPLANNABLE}.*composite"),
    # writes, also inside subqueries and in batches
    ("CALL { CREATE (:Intruder) } RETURN 1", {}, "only read-only Cypher.*read-write"),
    ("MATCH (n) CALL { WITH n SET n.gate_probe = 1 } RETURN count(*)", {}, "only read-only Cypher.*read-write"),
    ("CREATE (:Intruder)", {}, "only read-only Cypher.*write"),
    ("MERGE (:Intruder)", {}, "only read-only Cypher.*write"),
    ("MATCH (n) DETACH DELETE n", {}, "only read-only Cypher.*write"),
    ("MATCH (n) FOREACH (x IN [1] | SET n.gate_probe = 1)", {}, "only read-only Cypher.*write"),
    ("UNWIND range(1, 10) AS i CALL { WITH i CREATE (:Intruder {i: i}) } IN TRANSACTIONS OF 2 ROWS", {},
     "IN TRANSACTIONS is not allowed"),
    ("MATCH (n) CALL (n) { SET n.gate_probe = 1 } IN TRANSACTIONS RETURN count(*)", {}, "IN TRANSACTIONS"),
    ("CREATE INDEX foo FOR (n:Intruder) ON (n.x)", {}, "CREATE INDEX is not allowed here.*schema"),
    ("MATCH (n) RETURN n; CREATE (:Intruder)", {}, f"{UNPLANNABLE}.*SyntaxError"),
    ("PROFILE CREATE (:Intruder)", {}, UNPLANNABLE),
    # procedures outside the allow-list
    ("CALL dbms.components()", {}, "procedure dbms.components is not allowed"),
    ("CALL dbms.killConnections(['bolt-1'])", {}, "procedure dbms.killConnections is not allowed"),
    ("CALL dbms.listConfig()", {}, "procedure dbms.listConfig is not allowed"),
    ("CALL db.createLabel('Intruder')", {}, "procedure db.createLabel is not allowed"),
    ("CALL db.clearQueryCaches()", {}, "procedure db.clearQueryCaches is not allowed"),
    ("CALL db.create.setNodeVectorProperty(null, 'x', [1.0])", {}, "procedure db.create.setNodeVectorProperty"),
    ("CALL db.info()", {}, "procedure db.info is not allowed"),
    # procedures this server does not have (Enterprise-only, removed in Neo4j 5, APOC): refused all the same
    ("CALL dbms.setConfigValue('db.logs.query.enabled', 'OFF')", {}, f"{UNPLANNABLE}.*dbms.setConfigValue"),
    ("CALL db.index.fulltext.createNodeIndex('intruder', ['Intruder'], ['x'])", {},
     f"{UNPLANNABLE}.*db.index.fulltext.createNodeIndex"),
    ("CALL apoc.cypher.runWrite('CREATE (:Intruder)', {})", {}, f"{UNPLANNABLE}.*apoc.cypher.runWrite"),
    # loops inside one row: a string doubled past the heap (the server exited with OutOfMemoryError), regular
    # expressions that outlived the timeout (still running at 147 s), lists iterated for minutes
    ("RETURN size(reduce(s = 'xxxxxxxxxx', i IN range(1, 27) | s + s)) AS n", {}, r"reduce\(\) is not allowed"),
    ("MATCH (n:Text) WHERE n.text =~ '(.*a){12}.*z' RETURN count(n)", {}, "regular expressions"),
    (f"RETURN '{'a' * 60}' =~ '(.*a){{8}}z' AS m", {}, "regular expressions"),
    ("MATCH (n:Text) WHERE n.text =~ $p RETURN count(n)", {"p": "(.*a){12}.*z"}, "regular expressions"),
    ("RETURN size([i IN range(1, 300000000) | i]) AS n", {}, r"range\(\) outside UNWIND"),
    ("MATCH (n:Text) WITH collect(n.text) AS t RETURN size([x IN t WHERE any(y IN t WHERE y = x)]) AS n", {},
     "inside another is not allowed"),
    ("RETURN 5 IN range(1, 1000000000000) AS x", {}, r"range\(\) outside UNWIND"),
    ("WITH [0] AS l " + "WITH l + l AS l " * 30 + "RETURN 1 IN l AS x", {}, r"more than 8 '\+' or '\|\|'"),
    ("WITH 'xxxxxxxxxx' AS s " + "WITH s + s AS s " * 28 + "RETURN size(s) AS n", {}, r"more than 8 '\+' or '\|\|'"),
    # '||' concatenates as '+' does (it ended in OutOfMemoryError after 1.5-5 s); a shortest-path search the server
    # could not stop (a core busy until 82 s against a 30 s timeout); a loop that upper-cases a 100-million-character
    # value once per item (58 s against 30)
    ("WITH 'xxxxxxxxxx' AS s " + "WITH s || s AS s " * 27 + "RETURN size(s) AS n", {}, r"more than 8 '\+' or '\|\|'"),
    ("MATCH p = ANY SHORTEST (a:Entity)-[:RELATED]-+(b:Entity) RETURN count(p)", {}, "without an upper bound"),
    ("MATCH p = shortestPath((a:Entity)-[:RELATED*]-(b:Entity)) RETURN count(p)", {}, "without an upper bound"),
    ("UNWIND range(1, 1200) AS i WITH collect(i) AS l, " + GROWN + " AS big RETURN [x IN l | size(toUpper(big))] AS r",
     {}, "value 'big' from outside a loop"),
]

# (query, parameters, a check of the rows)
ALLOWED: list[tuple[str, dict[str, Any], Callable[[list[dict[str, Any]]], bool]]] = [
    ("MATCH (n:TreeNode {doc_key: $doc}) RETURN n.key AS key ORDER BY key", {"doc": DOC},
     lambda rows: [r["key"] for r in rows] == [f"{DOC}-1", f"{DOC}-2"]),
    ("CALL db.labels()", {}, lambda rows: "TreeNode" in {r["label"] for r in rows}),
    ("CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType", {},
     lambda rows: "NEXT" in {r["relationshipType"] for r in rows}),
    ("CALL db.index.fulltext.queryNodes('tree_node_text', 'gatekeeper') YIELD node RETURN node.key AS key", {},
     lambda rows: f"{DOC}-1" in {r["key"] for r in rows}),
    ("RETURN vector.similarity.cosine([1.0, 0.0], [1.0, 0.0]) AS s", {}, lambda rows: rows == [{"s": 1.0}]),
    ("RETURN gds.similarity.cosine([1.0, 0.0], [1.0, 0.0]) AS s", {}, lambda rows: rows == [{"s": 1.0}]),
    ("RETURN gds.graph.exists('intruder') AS e", {}, lambda rows: rows == [{"e": False}]),
    ("MATCH (n:TreeNode {doc_key: $doc}) RETURN count(n) AS n, collect(n.key) AS keys", {"doc": DOC},
     lambda rows: rows[0]["n"] == 2 and len(rows[0]["keys"]) == 2),
    ("RETURN $x + 1 AS y", {"x": 41}, lambda rows: rows == [{"y": 42}]),
    ("UNWIND range(1, 10) AS i RETURN sum(i) AS s", {}, lambda rows: rows == [{"s": 55}]),
    ("MATCH (n:TreeNode {doc_key: $doc}) OPTIONAL MATCH (n)-[:NEXT]->(m) RETURN n.key AS key, m.key AS next "
     "ORDER BY key", {"doc": DOC}, lambda rows: [r["next"] for r in rows] == [f"{DOC}-2", None]),
    ("USE neo4j MATCH (n:TreeNode {doc_key: $doc}) RETURN count(n) AS n", {"doc": DOC}, lambda rows: rows == [{"n": 2}]),
    ("CYPHER runtime=slotted MATCH (n:TreeNode {doc_key: $doc}) RETURN count(n) AS n", {"doc": DOC},
     lambda rows: rows == [{"n": 2}]),
    ("RETURN COUNT { CALL db.labels() YIELD label RETURN label } AS n", {}, lambda rows: rows[0]["n"] >= 1),
    ("MATCH (n:TreeNode {doc_key: $doc}) WHERE any(l IN labels(n) WHERE l = 'Text') AND n.text CONTAINS 'gate' "
     "RETURN [k IN keys(n) WHERE k = 'title' | n[k]] AS t", {"doc": DOC}, lambda rows: rows == [{"t": ["gatekeeper"]}]),
    ("MATCH p = (:TreeNode {doc_key: $doc})-[:NEXT]->() RETURN [x IN nodes(p) | x.title] AS t", {"doc": DOC},
     lambda rows: rows == [{"t": ["gatekeeper", "second"]}]),
    ("MATCH (n:TreeNode {doc_key: $doc}) WITH collect(n.title) AS t RETURN size([x IN t WHERE x STARTS WITH 'gate']) "
     "AS n", {"doc": DOC}, lambda rows: rows == [{"n": 1}]),
]


@pytest.fixture
async def gate_graph(db: Neo4jClient, schema: list[dict]) -> AsyncIterator[Neo4jClient]:
    """Two linked text blocks of a test document (the ``graph`` fixture removes them after the test)."""
    await db.run("CREATE (:TreeNode:Text {key: $doc + '-1', doc_key: $doc, title: 'gatekeeper', text: 'gatekeeper'})"
                    "-[:NEXT]->(:TreeNode:Text {key: $doc + '-2', doc_key: $doc, title: 'second', text: 'second'})",
                    {"doc": DOC})
    yield db


@pytest.mark.parametrize(("query", "params", "reason"), HOSTILE, ids=[q[:60] for q, _, _ in HOSTILE])
async def test_a_hostile_query_is_refused(db: Neo4jClient, query: str, params: dict, reason: str) -> None:
    with pytest.raises(QueryRefusedError, match=reason) as refused:
        await db.run_user_query(query, params)
    assert "\n" not in str(refused.value)  # one line


async def test_the_hostile_table_leaves_no_trace(db: Neo4jClient) -> None:
    assert len(HOSTILE) >= 40
    before = {r["graph_name"] for r in await db.read("gds/list_graphs")}
    for query, params, _ in HOSTILE:
        with pytest.raises(QueryRefusedError):
            await db.run_user_query(query, params)
    assert await db.run("MATCH (n:Intruder) RETURN count(n) AS n") == [{"n": 0}]
    assert await db.run("MATCH (n) WHERE n.gate_probe IS NOT NULL RETURN count(n) AS n") == [{"n": 0}]
    after = {r["graph_name"] for r in await db.read("gds/list_graphs")}
    assert after == before and not {"g", "x", "intruder"} & after
    assert await db.run_user_query("RETURN 1 AS one") == [{"one": 1}]  # the server still answers


@pytest.mark.parametrize(("query", "params", "check"), ALLOWED, ids=[q[:60] for q, _, _ in ALLOWED])
async def test_an_allowed_query_runs(gate_graph: Neo4jClient, query: str, params: dict,
                                     check: Callable[[list[dict[str, Any]]], bool]) -> None:
    rows = await gate_graph.run_user_query(query, params)
    assert check(rows), rows


async def test_the_row_cap_refuses_a_result_longer_than_max_rows(db: Neo4jClient) -> None:
    with pytest.raises(UserQueryError, match="more than 10 rows; add LIMIT"):
        await db.run_user_query("UNWIND range(1, 20) AS i RETURN i", max_rows=10)
    assert len(await db.run_user_query("UNWIND range(1, 20) AS i RETURN i", max_rows=20)) == 20
    assert len(await db.run_user_query("UNWIND range(1, 20) AS i RETURN i LIMIT 10", max_rows=10)) == 10
    assert len(await db.run_user_query("UNWIND range(1, 20000) AS i RETURN i", max_rows=None)) == 20000
    with pytest.raises(UserQueryError, match="more than 10000 rows"):  # the default cap
        await db.run_user_query("UNWIND range(1, 10001) AS i RETURN i")
    # it streams and stops: a billion rows would outlast the timeout, the cap ends the query first
    with pytest.raises(UserQueryError, match="more than 10 rows"):
        await db.run_user_query("UNWIND range(1, 1000000000) AS i RETURN i", max_rows=10)
    # truncate: the first max_rows rows instead of the error, and the rest is discarded, not streamed
    rows = await db.run_user_query("UNWIND range(1, 1000000000) AS i RETURN i", max_rows=10, truncate=True)
    assert [r["i"] for r in rows] == list(range(1, 11))


async def test_a_query_that_outgrows_the_heap_fails_and_the_server_answers(db: Neo4jClient) -> None:
    """A value the transaction memory limit does not track (a string multiplied tenfold nine times: 10^10
    characters) fails within the timeout with a clear error, and the server answers the next query (with Neo4j's
    -XX:+ExitOnOutOfMemoryError it exited)."""
    grown = "'xxxxxxxxxx'"
    for _ in range(9):
        grown = f"replace({grown}, 'x', 'xxxxxxxxxx')"
    timeout = 10.0
    began = time.monotonic()
    with pytest.raises(UserQueryError, match="more memory than the server has|MemoryPoolOutOfMemoryError"):
        await db.run_user_query(f"RETURN size({grown}) AS n", timeout=timeout)
    assert time.monotonic() - began < timeout + 5
    assert await db.run_user_query("RETURN 1 AS one") == [{"one": 1}]


PROBES = HOSTILE[-9:]


@pytest.mark.parametrize(("query", "params"), [(q, p) for q, p, _ in PROBES], ids=[q[:40] for q, _, _ in PROBES])
async def test_the_probes_end_at_once_through_the_sdk(settings: Settings, offline_models: Models, schema: list,
                                                      query: str, params: dict) -> None:
    """The probes through the SDK's run_cypher (the MCP server's read_cypher calls it): refused before they run."""
    rag = BookRAG(settings, models=offline_models, use_llm=False)
    try:
        began = time.monotonic()
        with pytest.raises(QueryRefusedError):
            await rag.arun_cypher(query, params)
        assert time.monotonic() - began < 5
        assert await rag.arun_cypher("RETURN 1 AS one") == [{"one": 1}]
    finally:
        await rag.aclose()
