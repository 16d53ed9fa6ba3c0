"""Neo4j Browser links and BI queries against the test server: every query in ``cypher/browser/`` and
``cypher/bi/`` runs through the read-only path and returns the columns its header documents; user Cypher
that writes is refused before it runs; ``bookrag browse`` links decode (the way Browser 5 decodes them) to
the ``:param`` line and the query. (Links alone, without a server: ``tests/unit/test_browse.py``.)"""

from __future__ import annotations

import asyncio
import csv
import io
import json
from pathlib import Path

import pytest

from bookrag_neo4j import BookRAG
from bookrag_neo4j.browse import answer_trace_params, browser_query
from bookrag_neo4j.db.queries import documented_columns, load_query
from bookrag_neo4j.errors import QueryNotFoundError, QueryRefusedError, UserQueryError
from bookrag_neo4j.index.pipeline import Indexer
from bookrag_neo4j.keys import file_key
from bookrag_neo4j.llm import Models
from bookrag_neo4j.methods import Retriever
from bookrag_neo4j.resources import resource_dir

from ..helpers.cli import run_cli
from ..helpers.links import browser_editor_lines
from ..helpers.pdfs import FOOTLOCKER, need
from ..helpers.timeouts import LONG_TEST

pytestmark = pytest.mark.timeout(LONG_TEST)  # indexes a real 8-K (tree, embeddings, graph)


async def test_every_browser_and_bi_query_runs_read_only(db, settings) -> None:
    models = Models.from_settings(settings)
    report = await Indexer(db, settings, models, use_llm=False).index(need(FOOTLOCKER), force=True)
    evidence = await Retriever(db, settings, models, use_llm=False).retrieve(
        "Who was elected to the board of directors?", [report.doc_key])
    params = {"doc": FOOTLOCKER.name, "section": "", "entity": "Foot Locker", "limit": 20,
              **answer_trace_params(json.loads(evidence.model_dump_json()))}
    assert params["seeds"], "the offline Extract step links the question's entities"
    for folder in ("browser", "bi"):
        for path in sorted((resource_dir("cypher") / folder).glob("*.cypher")):
            name = f"{folder}/{path.stem}"
            text = load_query(name)
            rows = await db.run_user_query(text, params)
            assert rows, f"{name} returned nothing"
            if folder == "browser":  # the link's form: its parameters written in as literals, same rows
                bound = {k: v for k, v in params.items() if f"${k} AS {k}" in text}
                assert len(await db.run_user_query(browser_query(path.stem, bound))) == len(rows)
            if folder == "bi":  # flat tables: the documented columns, scalar values only
                assert documented_columns(name), f"{name} documents no columns"
                assert list(rows[0]) == documented_columns(name)
                assert all(not isinstance(v, dict | list) for row in rows for v in row.values())
                assert {row["document"] for row in rows} == {FOOTLOCKER.name}, name  # $doc honoured by each
                assert not await db.run_user_query(text, params | {"doc": "no-such.pdf"}), name
    (toc_row, *_) = await db.run_user_query(load_query("browser/toc"), params)
    documents = await db.run_user_query(load_query("bi/documents"), params)
    assert FOOTLOCKER.name in {d["document"] for d in documents}
    assert toc_row["path"] is not None
    cost = {r["document"]: r for r in await db.run_user_query(load_query("bi/index_cost"), params)}
    row = cost[FOOTLOCKER.name]  # the cost recorded at indexing: seconds of both stages, no LLM offline
    assert row["pages"] == report.pages and row["index_seconds"] > 0 and row["graph_seconds"] > 0
    assert row["llm_calls"] == 0 and row["pages_per_second"] > 0
    # the answer trace: the evidence, its sections, the question's entities and one bridge an evidence node, not
    # every entity the evidence mentions (the co-mention hairball)
    entities = await db.run_user_query(
        "MATCH (e:Entity)-[:MENTIONED_IN]->(n:TreeNode) WHERE n.key IN $nodes RETURN count(DISTINCT e) AS n", params)
    drawn = await db.run_user_query(load_query("browser/answer_neighbourhood").replace(
        "RETURN n, unit, up, gt, bridge", "UNWIND [x IN coalesce(nodes(gt), []) + coalesce(nodes(bridge), []) "
        "WHERE x:Entity | x.key] AS key RETURN count(DISTINCT key) AS n"), params)
    assert 0 < drawn[0]["n"] <= len(params["seeds"]) + len(params["nodes"]) < entities[0]["n"], (drawn, entities)


async def test_user_cypher_that_writes_is_refused(db, settings) -> None:
    # a document to delete, so that a DETACH DELETE that ran would show (the tree alone; unchanged: a no-op)
    await Indexer(db, settings, Models.from_settings(settings), use_llm=False).index(
        need(FOOTLOCKER), embed=False, knowledge_graph=False, layout=False)
    for query, kind in [("CREATE (x:Intruder) RETURN x", "read-write"), ("MATCH (d:Document) DETACH DELETE d", "write"),
                        ("CREATE INDEX intruder IF NOT EXISTS FOR (n:Intruder) ON (n.x)", "schema")]:
        with pytest.raises(QueryRefusedError, match=kind):
            await db.run_user_query(query)
    assert await db.run_user_query("MATCH (n:Intruder) RETURN count(n) AS n") == [{"n": 0}]  # nothing ran
    assert (await db.run_user_query("MATCH (d:Document) RETURN count(d) AS n"))[0]["n"] >= 1
    with pytest.raises(UserQueryError, match="SyntaxError"):
        await db.run_user_query("MATCH (n RETURN n")
    with pytest.raises(UserQueryError, match="(?i)timed? ?out|terminated"):  # no machine counts 1e9 rows in 0.5 s
        await db.run_user_query("UNWIND range(1, 1000000000) AS x WITH x WHERE x % 7 = 99 RETURN count(x)",
                                   timeout=0.5)


def test_the_sdk_runs_user_cypher_read_only(settings, conn) -> None:
    rag = BookRAG(settings, use_llm=False)
    assert rag.run_cypher("RETURN $x + 1 AS y", {"x": 41}) == [{"y": 42}]
    with pytest.raises(QueryRefusedError):
        rag.run_cypher("CREATE (:Intruder)")

    async def in_a_running_loop() -> list[dict]:  # as in Jupyter: the sync facade still works
        return rag.run_cypher("RETURN 1 AS one")

    assert asyncio.run(in_a_running_loop()) == [{"one": 1}]


def test_the_sdk_draws_an_answers_evidence_graph(settings, conn) -> None:
    rag = BookRAG(settings, use_llm=False)
    rag.index(need(FOOTLOCKER))
    answer = rag.ask("Who was elected to the board of directors?", doc=FOOTLOCKER.name)
    edges = rag.evidence_graph(answer)
    evidence = {n.key for n in answer.evidence}
    assert edges and {"HAS_CHILD", "MENTIONED_IN"} <= {e.type for e in edges}
    assert {e.target for e in edges if e.type == "HAS_CHILD"} == evidence  # every block under its section
    assert all(e.source_kind == "entity" for e in edges if e.type == "MENTIONED_IN")
    assert all(e.source_caption and e.target_caption for e in edges)


async def test_bookrag_browse_prints_a_prefilled_link(db, settings, tmp_path: Path) -> None:
    await Indexer(db, settings, Models.from_settings(settings), use_llm=False).index(need(FOOTLOCKER))
    result = run_cli(settings, "browse", FOOTLOCKER.name, "--entity", "Foot Locker")
    assert result.returncode == 0, result.stderr
    url = result.stdout.strip()
    assert url.startswith(f"http://localhost:{settings.neo4j.http_port}/browser/?dbms=bolt://neo4j@localhost:"
                          f"{settings.neo4j.bolt_port}&db=neo4j&preselectAuthMethod=NATIVE&cmd=edit&arg=")  # login filled
    assert f"log in as neo4j; the password is in {settings.password_file}" in result.stderr
    (query,) = browser_editor_lines(url)
    assert query.startswith(f'WITH "{FOOTLOCKER.name}" AS doc, "Foot Locker" AS entity\n') and "MENTIONED_IN" in query
    trace = tmp_path / "answer.json"
    trace.write_text(json.dumps({"evidence": [{"key": "k1"}], "trace": []}))
    linked = run_cli(settings, "browse", "--answer-trace", str(trace), "--browser", "http://example:7474/browser")
    assert linked.returncode == 0
    assert browser_editor_lines(linked.stdout.strip())[0].startswith('WITH ["k1"] AS nodes, [] AS seeds\n')
    missing = run_cli(settings, "browse", "no-such-document.pdf")
    assert missing.returncode != 0
    nothing = run_cli(settings, "browse", FOOTLOCKER.name, "--entity", "zzzzqq")  # no link to an empty result
    assert nothing.returncode != 0 and not nothing.stdout and "no entity named 'zzzzqq'" in nothing.stderr


async def test_bookrag_query_runs_your_own_cypher_through_the_gate(db, settings) -> None:
    await Indexer(db, settings, Models.from_settings(settings), use_llm=False).index(need(FOOTLOCKER))
    found = run_cli(settings, "query", "MATCH (t:Text {doc_key: $key}) RETURN t ORDER BY t.order", "--param",
                    f"key={file_key(need(FOOTLOCKER))}", "--max-rows", "2", "--json")
    assert found.returncode == 0, found.stderr
    reply = json.loads(found.stdout)
    assert len(reply["rows"]) == 2 and reply["truncated"] and "the first 2 shown" in reply["note"]
    assert reply["rows"][0]["t"]["embedding"] == "<vector of 384 floats, left out>" and reply["rows"][0]["t"]["text"]
    table = run_cli(settings, "query", "RETURN $n + 1 AS n, $name AS name", "-p", "n=41", "-p", "name=Foot Locker")
    assert table.returncode == 0 and "42" in table.stdout and "Foot Locker" in table.stdout, table.stderr
    refused = run_cli(settings, "query", "MATCH (n) DETACH DELETE n")
    assert refused.returncode == 1 and "read-only" in refused.stderr and refused.stderr.count("\n") == 1


async def test_bookrag_bi_prints_a_bi_query_as_csv(db, settings) -> None:
    await Indexer(db, settings, Models.from_settings(settings), use_llm=False).index(need(FOOTLOCKER))
    result = run_cli(settings, "bi", "sections", "--doc", FOOTLOCKER.name, "--csv")
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    expected = await db.run_user_query(load_query("bi/sections"), {"doc": FOOTLOCKER.name})
    assert [r["section"] for r in rows] == [e["section"] for e in expected] and list(rows[0]) == list(expected[0])
    rag = BookRAG(settings, use_llm=False)
    try:
        table = await rag.abi("sections", doc=FOOTLOCKER.name)  # the SDK's table: its columns, its rows
        assert table.columns == documented_columns("bi/sections") and table.records() == expected
        with pytest.raises(QueryNotFoundError):
            await rag.abi("no_such_table")
    finally:
        await rag.aclose()
    assert run_cli(settings, "bi", "sections; MATCH (n) DETACH DELETE n").returncode != 0  # names are allow-listed
