"""The read-only gate's plan walk without a server: plans shaped as the neo4j Python driver returns them
(``summary.plan``, a dict), copied from what Neo4j 5.26 with GDS 2.13 plans for each query. (Against the
server, hostile and allowed queries end to end: ``tests/integration/test_gate.py``.)"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from bookrag_neo4j.db.gate import (
    ALLOWED_PROCEDURES,
    check_plan,
    explain_refused,
    function_reason,
    procedure_reason,
    refusal_reason,
)
from bookrag_neo4j.errors import QueryRefusedError


def op(kind: str, details: str | None = None, *children: dict[str, Any], db: str = "neo4j", **args: Any) -> dict:
    """One plan operator, as the driver gives it: ``{"operatorType": "Kind@db", "args": ..., "children": ...}``."""
    arguments = {**args, **({"Details": details} if details is not None else {})}
    return {"operatorType": f"{kind}@{db}" if db else kind, "args": arguments, "children": list(children),
            "identifiers": []}


def root(*children: dict[str, Any], db: str = "neo4j") -> dict[str, Any]:
    return op("ProduceResults", "x", *children, db=db, planner="COST", runtime="SLOTTED",
              **{"string-representation": "+ProduceResults ... gds.graph.drop(x) :: (y) ... LOAD CSV ..."})


def reason(plan: Any, query_type: str = "r", database: str = "neo4j") -> str | None:
    return refusal_reason(plan, query_type=query_type, database=database, allowed_database="neo4j")


# (what the plan is of, the plan, its query type, what the refusal says; None: allowed)
PLANS: list[tuple[str, Any, str, str | None]] = [
    ("MATCH (n) RETURN n LIMIT 1", root(op("Limit", "1", op("AllNodesScan", "n"))), "r", None),
    ("CALL db.labels()", root(op("ProcedureCall", "db.labels() :: (label :: STRING)")), "r", None),
    ("fulltext", root(op("ProcedureCall", "db.index.fulltext.queryNodes($autostring_0, $autostring_1) :: "
                                          "(node :: NODE, score :: FLOAT)")), "r", None),
    ("vector function", root(op("Projection", "vector.similarity.cosine($autolist_0, $autolist_1) AS s")), "r", None),
    ("gds function", root(op("Projection", "gds.similarity.cosine($autolist_0, $autolist_1) AS s")), "r", None),
    ("gds util", root(op("Projection", "gds.util.asNode($autoint_0) AS n")), "r", None),
    ("property access", root(op("Projection", "n.name AS name, date.truncate('day', n.at) AS d")), "r", None),
    ("USE NEO4J", root(op("NodeCountFromCountStore", "count( () ) AS `count(n)`", db="NEO4J"), db="NEO4J"), "r", None),
    ("COUNT { CALL db.labels() }", root(op("Projection", "COUNT { ResolvedCall(db.labels() :: label :: STRING,"
                                             "ArraySeq()) RETURN label AS label } AS s")), "r", None),
    # loops inside one row, which the timeout cannot stop and the memory limit does not track
    ("=~ in a filter", root(op("Filter", "n.text =~ $autostring_0", op("NodeByLabelScan", "n:Text"))), "r",
     "regular expressions"),
    ("=~ on literals", root(op("Projection", "$autostring_0 =~ $autostring_1 AS m")), "r", "regular expressions"),
    ("reduce", root(op("Projection", "size(reduce(s = $autostring_0, i IN range($autoint_1, $autoint_2) | s + s)) "
                                     "AS n")), "r", "reduce() is not allowed"),
    ("a comprehension over range", root(op("Projection", "size([i IN range($autoint_0, $autoint_1) | i]) AS n")),
     "r", "range() outside UNWIND is not allowed here"),
    ("a loop in a loop", root(op("Projection", "size([x IN t WHERE any(y IN t WHERE y = x)]) AS n")), "r",
     "inside another is not allowed here"),
    ("a search in a loop", root(op("Projection", "size([x IN t WHERE x IN t]) AS n")), "r",
     "inside another is not allowed here"),
    ("a parameter searched in a loop", root(op("Projection", "[x IN t WHERE x IN $labels] AS n")), "r", None),
    ("loops side by side", root(op("Projection", "size([k IN kinds WHERE k = $autostring_0]) AS a, "
                                                 "size([k IN kinds WHERE k = $autostring_1]) AS b, "
                                                 "any(x IN l WHERE x = $autoint_2) AS c")), "r", None),
    ("range outside UNWIND", root(op("Projection", "$autoint_0 IN range($autoint_1, $autoint_2) AS x")), "r",
     "range() outside UNWIND is not allowed here"),
    ("range in UNWIND", root(op("EagerAggregation", "sum(i) AS s", op("Unwind", "range($autoint_0, $autoint_1) AS i"))),
     "r", None),
    ("a node's own lists", root(op("Filter", "any(l IN labels(n) WHERE l = $autostring_0) AND size([k IN keys(n) | k]) "
                                             "> $autoint_1", op("AllNodesScan", "n"))), "r", None),
    ("a path's own nodes", root(op("Projection", "[x IN nodes(p) | x.key] AS k")), "r", None),
    ("8 additions", root(op("Projection", " + ".join("abcdefghi") + " AS s")),
     "r", None),
    ("9 additions", root(op("Projection", "s + s AS s", *[op("Projection", "s + s AS s")] * 8)), "r",
     "more than 8 '+' or '||' operators"),
    ("9 concatenations with ||", root(op("Projection", "s || s AS s", *[op("Projection", "s || s AS s")] * 8)), "r",
     "more than 8 '+' or '||' operators"),
    ("a loop over an outer value", root(op("Projection", "[x IN l | size(toUpper(big))] AS r")), "r",
     "value 'big' from outside a loop"),
    ("an outer value concatenated in a loop", root(op("Projection", "[x IN l WHERE x + big = $autostring_0] AS r")),
     "r", "value 'big' from outside a loop"),
    ("an outer value in backticks", root(op("Projection", "[x IN l | toUpper(`big one`)] AS r")), "r",
     "from outside a loop"),
    ("a loop variable in backticks", root(op("Projection", "[`x y` IN l | toUpper(`x y`)] AS r")), "r", None),
    ("an outer node read by property and index", root(op("Projection", "[k IN keys(n) WHERE k = $autostring_0 | "
                                                                      "n[k]] AS t, [x IN l | x.a + n.b] AS u")),
     "r", None),
    ("a string literal in a loop", root(op("Projection", "[x IN l | x + 'big word'] AS r")), "r", None),
    ("ANY SHORTEST unbounded", root(op("EagerAggregation", "count((a)-[anon_7*]-(b)) AS `count(p)`", op(
        "StatefulShortestPath(All)", "SHORTEST 1 (a) ((`anon_3`)-[`anon_4`]-(`anon_5`)){1, } (b)\n        "
                                     "expanding from: a\n    inlined predicates: anon_4:RELATED"))),
     "r", "shortest-path search without an upper bound"),
    ("ALL SHORTEST bounded", root(op("StatefulShortestPath(All)", "SHORTEST 1 GROUPS (a) ((`anon_3`)-[`anon_4`]-"
                                                                  "(`anon_5`)){1, 3} (b)\n  expanding from: a")),
     "r", None),
    ("ANY SHORTEST bounded too far", root(op("StatefulShortestPath(Into)", "SHORTEST 1 (a) ((`anon_3`)-[`anon_4`]-"
                                                                           "(`anon_5`)){1, 40} (b)")),
     "r", "at most 8 hops"),
    ("shortestPath unbounded", root(op("ShortestPath", "p = (a)-[anon_0:RELATED*]-(b)")), "r",
     "shortest-path search without an upper bound"),
    ("shortestPath bounded", root(op("ShortestPath", "p = (a)-[anon_0:RELATED*..5]-(b)")), "r", None),
    ("'+' and '=~' in a quoted name", root(op("Projection", "n.a + n.b AS `n.a + n.b + c + d + e + f + g + h + i =~ x`")),
     "r", None),
    ("gds.graph.project procedure", root(op("ProcedureCall", "gds.graph.project($autostring_0, $autostring_1, "
                                                             "$autostring_2) :: (graphName :: STRING)")),
     "r", "procedure gds.graph.project is not allowed here"),
    ("gds.graph.generate", root(op("ProcedureCall", "gds.graph.generate($autostring_0, $autoint_1, $autoint_2) :: "
                                                    "(name :: STRING)")), "r", "procedure gds.graph.generate"),
    ("nested CALL { gds.graph.drop }", root(op("Apply", None, op("Projection", "$autoint_0 AS x"),
                                              op("ProcedureCall", "gds.graph.drop($autostring_1) :: (graphName :: "
                                                                  "STRING)", op("Argument", "x")))),
     "r", "procedure gds.graph.drop is not allowed here"),
    ("hidden in an expression", root(op("Projection", "reduce(a = $autoint_1, x IN $autolist_2 | a + COUNT { "
                                                      "ResolvedCall(gds.graph.drop(graphName :: ANY) :: graphName "
                                                      ":: STRING) RETURN graphName }) AS s")),
     "r", "procedure gds.graph.drop is not allowed here"),
    ("a procedure call the walk cannot name", root(op("ProcedureCall", "")), "r", "cannot name"),
    ("void write procedure", root(op("EmptyResult", None, op("ProcedureCall", "db.createLabel($autostring_0) :: ()"))),
     "w", "procedure db.createLabel is not allowed here"),
    ("dbms procedure", root(op("ProcedureCall", "dbms.components() :: (name :: STRING)")), "s",
     "procedure dbms.components is not allowed here"),
    ("aggregation gds.graph.project", root(op("EagerAggregation", "gds.graph.project($autostring_0, s, t) AS g",
                                              op("DirectedAllRelationshipsScan", "(s)-[anon_0]->(t)"))),
     "r", "function gds.graph.project is not allowed here"),
    ("apoc function", root(op("Projection", "apoc.cypher.runFirstColumnSingle($autostring_0, {}) AS x")), "r",
     "function apoc.cypher.runFirstColumnSingle is not allowed here"),
    ("LOAD CSV", root(op("LoadCSV", "row")), "r", "LOAD CSV is not allowed here"),
    ("LOAD CSV in a subquery", root(op("Apply", None, op("AllNodesScan", "n"), op("LoadCSV", "r", op("Argument", "n")))),
     "r", "LOAD CSV is not allowed here"),
    ("LOAD CSV in an expression", root(op("Projection", "reduce(a = $autoint_0, x IN $autolist_1 | a + COUNT { "
                                                        "LOAD CSV FROM \"file:///etc/passwd\" AS r RETURN r AS r }) "
                                                        "AS s")), "r", "LOAD CSV is not allowed here"),
    ("SHOW TRANSACTIONS", root(op("ShowTransactions", "defaultColumns, allTransactions")), "r",
     "SHOW TRANSACTIONS is not allowed here"),
    ("TERMINATE TRANSACTIONS", root(op("TerminateTransactions", "transactions(neo4j-transaction-1)")), "r",
     "TERMINATE TRANSACTIONS is not allowed here"),
    ("SHOW USERS", op("AdministrationCommand", db="system", runtime="SYSTEM", planner="ADMINISTRATION"), "s",
     "administration commands"),
    ("CREATE INDEX", op("CreateIndex", "RANGE INDEX foo FOR (:Intruder) ON (x)", runtime="SCHEMA",
                        planner="ADMINISTRATION"), "s", "CREATE INDEX is not allowed here (a schema command)"),
    ("USE system CALL db.labels()", op("db.labels", db="system", runtime="SYSTEM", planner="ADMINISTRATION"), "s",
     "queries on database 'system' are not allowed here"),
    ("USE system CALL dbms.components()", op("dbms.components", db="system", runtime="SYSTEM",
                                             planner="ADMINISTRATION"), "s", "procedure dbms.components"),
    ("USE other MATCH", root(op("AllNodesScan", "n", db="other"), db="other"), "r", "database 'other'"),
    ("IN TRANSACTIONS", root(op("TransactionForeach", "IN TRANSACTIONS OF 1000 ROWS ON ERROR FAIL",
                                op("AllNodesScan", "n"), op("SetProperty", "n.x = $autoint_0"))), "rw",
     "CALL { ... } IN TRANSACTIONS is not allowed here"),
    ("CALL { CREATE }", root(op("SubqueryForeach", None, op("EmptyRow"), op("Create", "(anon_0:Intruder)"))), "rw",
     "only read-only Cypher may run here; the server plans this query as read-write"),
    ("MERGE", root(op("Merge", "CREATE (anon_0:Intruder)")), "w", "as write"),
    ("no plan", None, "r", "no plan"),
]


@pytest.mark.parametrize(("what", "plan", "query_type", "expected"), PLANS, ids=[p[0] for p in PLANS])
def test_the_plan_walk(what: str, plan: Any, query_type: str, expected: str | None) -> None:
    found = reason(plan, query_type)
    if expected is None:
        assert found is None
        check_plan(plan, query_type=query_type, database="neo4j", allowed_database="neo4j")
    else:
        assert found is not None and expected in found and "\n" not in found
        with pytest.raises(QueryRefusedError, match="not allowed|read-only|no plan"):
            check_plan(plan, query_type=query_type, database="neo4j", allowed_database="neo4j")


def test_the_summary_database_and_the_query_type_are_checked_too() -> None:
    plain = root(op("AllNodesScan", "n"))
    assert reason(plain, database="system") == "queries on database 'system' are not allowed here (only 'neo4j')"
    assert reason(plain, query_type="s") is not None and "schema change" in reason(plain, query_type="s")
    assert reason(plain, query_type=None) is not None  # an unknown query type is not a read


def test_a_plan_object_walks_like_a_dict() -> None:
    def node(kind: str, details: str, *children: Any) -> SimpleNamespace:
        return SimpleNamespace(operator_type=kind, arguments={"Details": details}, children=list(children))

    assert reason(node("ProduceResults", "x", node("AllNodesScan", "n"))) is None
    assert "gds.graph.list" in (reason(node("ProduceResults", "x", node("ProcedureCall", "gds.graph.list() :: (x)")))
                                or "")


def test_the_allow_lists() -> None:
    assert all(procedure_reason(name) is None for name in ALLOWED_PROCEDURES)
    for name in ("gds.graph.project", "gds.graph.list", "dbms.components", "apoc.help", "db.createLabel", "db.info"):
        assert procedure_reason(name) == f"procedure {name} is not allowed here"
    for name in ("vector.similarity.cosine", "gds.similarity.cosine", "gds.util.asNode", "gds.graph.exists",
                 "gds.alpha.linkprediction.adamicAdar", "date.truncate", "point.distance"):
        assert function_reason(name) is None
    for name in ("gds.graph.project", "gds.graph.unknown", "apoc.cypher.run", "dbms.something"):
        assert function_reason(name) is not None and name in function_reason(name)


def test_a_query_the_server_will_not_plan_is_refused_in_one_line() -> None:
    refused = explain_refused("Neo.ClientError.Statement.SyntaxError", "Invalid input 'RETURN'\n\"EXPLAIN ...\"\n  ^")
    assert isinstance(refused, QueryRefusedError)
    assert str(refused) == ("the server refused to plan this query: Neo.ClientError.Statement.SyntaxError: "
                            "Invalid input 'RETURN'")
    assert "no message" in str(explain_refused(None, None))
