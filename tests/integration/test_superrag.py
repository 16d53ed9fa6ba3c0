"""SuperRAG and the hybrid baseline on a real paper's layout layer: every method runs end to end and cites
pages; the offline text2Cypher templates answer "What is on page N?" and "What does Table 3 show?"; an
LLM-written query runs only through the read-only gate; the cross-page merge and the table expansion behave as
the paper says."""

from __future__ import annotations

import json

import pytest

from bookrag_neo4j.browse import answer_trace_params, browser_query
from bookrag_neo4j.db.client import Neo4jClient
from bookrag_neo4j.eval.bench_cypher import bench_cypher
from bookrag_neo4j.library.documents import find_document
from bookrag_neo4j.llm import Models
from bookrag_neo4j.llm.scripted import ScriptedChatModel
from bookrag_neo4j.methods import Retriever
from bookrag_neo4j.ops.operator_registry import RunContext
from bookrag_neo4j.ops.superrag import HIDDEN_PROPERTIES, SCHEMA_LABELS, schema_description, template_query
from bookrag_neo4j.retrieval.units import passage_lexicon
from bookrag_neo4j.text.lexical import LexicalStats

from ..helpers.cli import run_cli
from ..helpers.pdfs import ACL_PAPER
from ..helpers.timeouts import LONG_TEST

pytestmark = pytest.mark.timeout(LONG_TEST)

PAPER = ACL_PAPER
METHODS = ("hybrid", "superrag-hybrid", "superrag-no-reflect", "superrag")


@pytest.fixture(scope="module")
def models(offline_models: Models) -> Models:
    return offline_models


@pytest.fixture
def paper(acl_paper: str) -> str:
    return acl_paper


def test_template_intents() -> None:
    assert template_query("What is on page 12?")[1] == {"page": "12", "number": 12}
    name, params = template_query("What does Table 3 show?")
    assert name == "superrag/captioned" and params["labels"] == ["Table"]
    assert template_query("Explain Fig. 2")[1]["labels"] == ["Image"]
    assert template_query('Summarise the section titled "Related Work"')[1] == {"title": "Related Work"}
    assert template_query("Who founded the company?") is None


async def test_every_method_runs_and_cites_pages(db: Neo4jClient, settings, models, paper) -> None:
    retriever = Retriever(db, settings, models, use_llm=False)
    for method in METHODS:
        answer = await retriever.ask("Which model performs best in the closed-book setting?", [paper], method=method)
        assert answer.evidence and answer.citations, method
        assert all(c.page_start >= 1 and c.document == PAPER.name for c in answer.citations), method
        assert len(answer.evidence) <= (10 if method == "hybrid" else 13), method  # 10 contexts, 3 tables
    traced = {t.operator for t in answer.trace}  # LLM-free: no ToC retriever, tables expanded without reflection
    assert {"Rerank", "Expand_Tables", "Text2Cypher", "Merge_Pages"} <= traced and "TOC_Search" not in traced
    question = "What was the accuracy of the fine-tuned model?"
    plain, no_reflect = [await retriever.retrieve(question, [paper], method=m) for m in ("superrag", "superrag-no-reflect")]
    assert [n.key for n in plain.nodes] == [n.key for n in no_reflect.nodes]  # the part left out changes nothing
    # once the layers are built, a question reads no document again to find that out (one read each per
    # document in scope, per question, was 50 round trips over a 50-document library)
    question = "Which model performs best in the closed-book setting?"
    for method in ("hybrid", "g2"):  # g2's content graph may be another test's (LLM evolution): built here
        await retriever.retrieve(question, [paper], method=method)
    reads: list[str] = []
    real_read, real_read_rows = db.read, db.read_rows

    async def counting_read(name: str, **params):
        reads.append(name)
        return await real_read(name, **params)

    async def counting_read_rows(name: str, **params):
        reads.append(name)
        return await real_read_rows(name, **params)

    db.read, db.read_rows = counting_read, counting_read_rows  # type: ignore[method-assign]
    try:
        for method in ("hybrid", "g2"):
            await retriever.retrieve(question, [paper], method=method)
    finally:
        del db.read, db.read_rows
    assert "library/list_documents" in reads and "library/find_document" not in reads
    # `bookrag browse --answer-trace` shows SuperRAG's evidence: passages with the blocks they cover
    params = answer_trace_params(answer.model_dump(mode="json"))
    rows = await db.run_user_query(browser_query("answer_neighbourhood", params))
    passages = [n.key for n in answer.evidence if n.kind == "passage"]
    shown = {r["unit"][0]["key"] for r in rows if r["unit"]}  # a path: [passage, "COVERS", block]
    assert passages and set(passages) <= shown


async def test_offline_templates_answer_page_and_table_questions(db: Neo4jClient, settings, models, paper) -> None:
    retriever = Retriever(db, settings, models, use_llm=False)
    table = await retriever.retrieve("What does Table 3 show?", [paper], method="superrag")
    first = table.nodes[0]
    assert first.kind == "table" and first.page_start == 8, first
    cypher = next(t for t in table.trace if t.operator == "Text2Cypher")
    assert cypher.output == "1 nodes (template superrag/captioned)"
    (label,) = await db.run("MATCH (p:Page {doc_key: $d, number: 12}) RETURN p.label AS label", {"d": paper})
    page = await retriever.retrieve(f"What is on page {label['label'] or 12}?", [paper], method="superrag")
    assert page.nodes[0].kind == "passage" and page.nodes[0].page_start <= 12 <= page.nodes[0].page_end
    # `bookrag cypher` shows the query written for the question and its rows; stats report the layer
    proc = run_cli(settings, "cypher", "What does Table 3 show?", "--doc", paper, "--json")
    assert proc.returncode == 0, proc.stderr
    run = json.loads(proc.stdout)
    assert run["source"] == "template superrag/captioned" and [r["key"] for r in run["rows"]] == [first.key]
    report = await bench_cypher(retriever, [(paper, "What does Table 3 show?"), (paper, "Who wrote it?")])
    assert report.questions == 2 and report.fell_back == 0.5 and report.valid == 0.5 and report.returned == 0.5
    assert report.per_question[0].source == "template superrag/captioned" and report.per_question[0].keys == 1
    proc = run_cli(settings, "stats", paper, "--json")
    layout = json.loads(proc.stdout)["layout"]
    assert layout["status"] == "complete" and layout["passages"] > 0 and layout["toc_entries"] > 0


async def test_llm_written_cypher_runs_only_through_the_gate(db: Neo4jClient, settings, paper) -> None:
    queries = iter([
        "LOAD CSV FROM 'http://127.0.0.1:7474/' AS row WITH row WHERE $doc_keys IS NOT NULL RETURN row[0] AS key",
        "MATCH (t:Table) WHERE t.doc_key IN $doc_keys AND t.caption STARTS WITH 'Table 3' RETURN t.key AS key",
    ])

    def reply(messages) -> str:
        system = messages[0]["content"]
        if system.startswith("You are required to construct a Cypher query"):
            assert "(:Passage {" in system and "$doc_keys" in system  # the schema, read from the database
            return json.dumps({"cypher": next(queries)})
        if system.startswith("You decide whether answering"):
            return json.dumps({"needs_tables": False})
        if system.startswith("Assume that you are reading a book"):
            return json.dumps({"section_ids": [0]})
        return json.dumps({"category": "single-hop"})

    models = Models.from_settings(settings.replace(llm_provider="none"))
    llm = ScriptedChatModel(reply)
    retriever = Retriever(db, settings, Models(llm=llm, vlm=None, embedder=models.embedder,
                                                  reranker=models.reranker))
    refused = await retriever.retrieve("What does Table 3 show?", [paper], method="superrag")
    step = next(t for t in refused.trace if t.operator == "Text2Cypher")
    assert step.output.startswith("0 nodes (llm query refused") and "LOAD CSV" in step.output
    steps = {t.operator: t for t in refused.trace}  # the LLM's reflection said no: no table was added
    assert steps["Expand_Tables"].output == next(t.output for t in refused.trace if t.step == "top")
    assert any(r[0]["content"].startswith("You decide whether answering") for r in llm.requests)
    ran = await retriever.retrieve("What does Table 3 show?", [paper], method="superrag")
    assert ran.nodes[0].kind == "table" and ran.nodes[0].page_start == 8


async def test_the_cypher_schema_lists_what_the_database_holds(db: Neo4jClient, settings, paper) -> None:
    """The schema text2Cypher shows, read from a sample of each label, lists every property the full scan finds."""
    full = await db.run("""
        CALL db.schema.nodeTypeProperties() YIELD nodeLabels, propertyName
        UNWIND nodeLabels AS label WITH label, propertyName WHERE label IN $labels AND propertyName IS NOT NULL
        RETURN label, collect(DISTINCT propertyName) AS properties""", {"labels": SCHEMA_LABELS})
    ctx = RunContext(db, settings, Models(llm=None, vlm=None, embedder=None, reranker=None), None, [])
    listed = {line.split(" ", 1)[0].removeprefix("(:"): line for line in (await schema_description(ctx)).splitlines()
              if line.startswith("(:") and " {" in line and "->" not in line}
    assert {r["label"] for r in full} == set(listed) and {"Passage", "Table", "Page"} <= set(listed)
    for row in full:
        shown = set(listed[row["label"]].split("{", 1)[1].rstrip("})").split(", "))
        assert shown == set(row["properties"]) - set(HIDDEN_PROPERTIES), row["label"]


async def test_toc_sections_bring_their_passages_most_similar_to_the_question(db: Neo4jClient, models,
                                                                              paper) -> None:
    """A chosen section brings its passages (its subsections' too) nearest the question first, not its first."""
    (vector,) = await models.embedder.embed(["closed-book accuracy of the models"])
    (row,) = await db.run("""
        MATCH (p:Passage {doc_key: $doc}) WITH p.section_key AS key, count(*) AS n ORDER BY n DESC, key
        RETURN key LIMIT 1""", {"doc": paper})
    (result,) = await db.read("superrag/section_passages", keys=[row["key"]], per=50, question_vector=list(vector))
    (keys,) = result["rows"]
    subtree = await db.run("""
        MATCH (:TreeNode {key: $key})-[:HAS_CHILD*0..]->(c:Section) MATCH (p:Passage {section_key: c.key})
        RETURN p.key AS key, p.ordinal AS ordinal, vector.similarity.cosine(p.embedding, $v) AS score""",
                              {"key": row["key"], "v": list(vector)})
    score = {r["key"]: r["score"] for r in subtree}
    assert sorted(keys) == sorted(score) and len(keys) > 1
    assert [score[k] for k in keys] == sorted(score.values(), reverse=True)
    assert keys != [r["key"] for r in sorted(subtree, key=lambda r: r["ordinal"])]  # not reading order here


async def test_units_name_the_block_they_start_with(db: Neo4jClient, models, paper) -> None:
    """Each unit names the block whose label the reasoners read with it: a passage its first block in reading
    order, a table row its table, a block itself."""
    (vector,) = await models.embedder.embed(["closed-book accuracy"])
    expected = {r["key"]: r["first"] for r in await db.run("""
        MATCH (p:Passage {doc_key: $doc})-[:COVERS]->(b) WITH p, b ORDER BY b.order
        RETURN p.key AS key, collect(b.key)[0] AS first
        UNION
        MATCH (t:TreeNode {doc_key: $doc})-[:HAS_ROW]->(r:TableChunk) RETURN r.key AS key, t.key AS first
        UNION
        MATCH (b:TreeNode {doc_key: $doc, kind: 'table'}) RETURN b.key AS key, b.key AS first""", {"doc": paper})}
    rows = await db.read_rows("layout/unit_candidates", keys=list(expected), question_vector=list(vector),
                                 max_chars=100)
    assert {r["key"]: r["first"] for r in rows} == expected
    assert any(k != first for k, first in expected.items()) and len({*expected.values()}) > 3


async def test_the_reranker_reads_bm25_statistics_of_the_whole_document(db: Neo4jClient, settings, models,
                                                                       paper) -> None:
    """SuperRAG's offline reranker takes IDF and mean length from every passage of the document (heading path and
    text, as it reads them), not from the 20-odd candidates; read once per layout build."""
    await Retriever(db, settings, models, use_llm=False).retrieve("closed-book accuracy", [paper],
                                                                    method="superrag")  # the layer is built
    doc = await find_document(db, paper)
    rows = await db.run("MATCH (p:Passage {doc_key: $doc}) RETURN p.heading AS heading, p.text AS text",
                           {"doc": paper})
    stats = await passage_lexicon(db, doc)
    assert stats == LexicalStats.of([f"{r['heading'] or ''}\n{r['text'] or ''}".strip() for r in rows])
    assert stats.blocks == len(rows) > 20
    assert await passage_lexicon(db, doc) is stats
