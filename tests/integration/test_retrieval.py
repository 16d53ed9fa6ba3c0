"""Retrieval operators on a small hand-built BookIndex with exactly known answers (real Neo4j with GDS):
subtrees selected, filters by page and type, PageRank in-process and in GDS against a reference, COUNT without
an LLM, citations, `ask` with a scripted LLM. (Skyline and the planner: ``tests/unit/test_retrieval.py``.)"""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import pytest

from bookrag_neo4j.db.client import Neo4jClient
from bookrag_neo4j.errors import QueryRefusedError, StepError
from bookrag_neo4j.index.store import write_tree
from bookrag_neo4j.library.catalogue import delete_document
from bookrag_neo4j.llm import Models
from bookrag_neo4j.llm.scripted import ScriptedChatModel
from bookrag_neo4j.methods import Retriever
from bookrag_neo4j.ops.executor import execute
from bookrag_neo4j.ops.operator_registry import RunContext
from bookrag_neo4j.ops.values import Question
from bookrag_neo4j.parsing.blocks import ParsedDocument
from bookrag_neo4j.retrieval import subtrees
from bookrag_neo4j.retrieval.document_blocks import BlockRow, read_blocks
from bookrag_neo4j.retrieval.entity_graph import EntityGraphCache
from bookrag_neo4j.retrieval.plan import Plan, PlanStep
from bookrag_neo4j.retrieval.reasoners import graph_reasoning, pagerank_in_process
from bookrag_neo4j.text.extraction import ExtractedEntity, ExtractedRelation, Extraction
from bookrag_neo4j.tree.model import DocumentTree, TreeNode, finalize

from ..helpers.models import NearbyEmbedder, ScriptedExtractor

DOC = "test-retrieval-0000000000000000000000000000"


def section(title: str, level: int, page: int, *children: TreeNode) -> TreeNode:
    return TreeNode(kind="section", title=title, text=title, level=level, page_start=page, page_end=page,
                    children=list(children))


def block(kind: str, text: str, page: int) -> TreeNode:
    return TreeNode(kind=kind, text=text, page_start=page, page_end=page)


#   Document
#   ├── 1 Alpha (p1)           ├── 1.1 Alpha one: t1 (p1), tb1 (p2)
#   │                          └── 1.2 Alpha two: t2 (p3), im1 (p3)
#   └── 2 Beta (p4): t3 (p4), eq1 (p5)
def hand_tree() -> DocumentTree:
    root = TreeNode(kind="document", title="Handbook", page_start=1, page_end=5, children=[
        section("1 Alpha", 1, 1,
                section("1.1 Alpha one", 2, 1, block("text", "t1 Ursa reports revenue.", 1),
                        block("table", "tb1 revenue by region", 2)),
                section("1.2 Alpha two", 2, 3, block("text", "t2 Vega and Ursa merged.", 3),
                        block("image", "", 3))),
        section("2 Beta", 1, 4, block("text", "t3 Vega grows in Lyra.", 4), block("equation", "E = m c^2", 5)),
    ])
    finalize(root, DOC)
    return DocumentTree(root=root, doc_key=DOC, heading_source="outline")


def concept(name: str) -> ExtractedEntity:
    return ExtractedEntity(name=name, type="ORGANIZATION", description=name)


EXTRACTIONS = {
    "t1 Ursa reports revenue.": Extraction(entities=[concept("Ursa")]),
    "tb1 revenue by region": Extraction(entities=[concept("Ursa"), concept("Region")]),
    "t2 Vega and Ursa merged.": Extraction(entities=[concept("Vega"), concept("Ursa")],
                                           relations=[ExtractedRelation(source="Vega", target="Ursa", weight=2)]),
    "t3 Vega grows in Lyra.": Extraction(entities=[concept("Vega"), concept("Lyra")],
                                         relations=[ExtractedRelation(source="Vega", target="Lyra", weight=1)]),
}


@pytest.fixture
async def book(db: Neo4jClient, settings, dimensions, schema, tmp_path) -> dict[str, str]:
    """The hand-built BookIndex in Neo4j; returns node keys by short name."""
    from bookrag_neo4j.kg.build import GraphBuilder
    from bookrag_neo4j.llm.reranker import FusionReranker

    tree = hand_tree()
    await delete_document(db, DOC)
    parsed = ParsedDocument(Path("handbook.pdf"), DOC, "Handbook", 5)
    await write_tree(db, tree, parsed, {"name": "handbook.pdf", "title": "Handbook"})
    embedder = NearbyEmbedder(dimensions)
    models = Models(llm=None, vlm=None, embedder=embedder, reranker=FusionReranker(embedder))
    local = settings.replace(cache_dir=tmp_path)
    await GraphBuilder(db, local, models, er_mode="basic", extractor=ScriptedExtractor(EXTRACTIONS)).build(DOC)
    names = {}
    for node in tree.nodes():
        short = (node.title.split(" ", 1)[0] if node.kind == "section" else (node.text.split(" ")[0] or "im1"))
        names["eq1" if node.kind == "equation" else short] = node.key
    return names


async def entity(db: Neo4jClient, name: str) -> str:
    (row,) = await db.run("MATCH (e:Entity {doc_key: $d, name: $n}) RETURN e.key AS k", {"d": DOC, "n": name})
    return row["k"]


def named(book: dict[str, str], keys: list[str]) -> set[str]:
    back = {v: k for k, v in book.items()}
    return {back.get(k, k) for k in keys}


async def test_selectors_return_the_known_subtrees(db: Neo4jClient, book) -> None:
    lyra = await entity(db, "Lyra")
    assert named(book, await subtrees.select_by_entity(db, [lyra], depth=2)) == {"2", "t3", "eq1"}
    region = await entity(db, "Region")
    assert named(book, await subtrees.select_by_entity(db, [region], depth=2)) == {"1.1", "t1", "tb1"}
    assert named(book, await subtrees.select_by_entity(db, [region], depth=1)) == {
        "1", "1.1", "t1", "tb1", "1.2", "t2", "im1"}
    assert named(book, await subtrees.select_by_section(db, [book["1.2"]])) == {"1.2", "t2", "im1"}
    assert named(book, await subtrees.subtrees_around(db, [book["t3"]], depth=2)) == {"2", "t3", "eq1"}
    # the budget: the most specific entity's root first (always taken), the next only while within budget
    (row,) = await db.run("MATCH (e:Entity) WHERE e.key IN $k RETURN collect([e.key, e.mentions]) AS m",
                             {"k": [lyra, region]})
    first, second = sorted([lyra, region], key=lambda k: (dict(row["m"])[k], k))
    subtree = {lyra: {"2", "t3", "eq1"}, region: {"1.1", "t1", "tb1"}}
    assert named(book, await subtrees.select_by_entity(db, [lyra, region], budget=6)) == subtree[first] | subtree[
        second]
    assert named(book, await subtrees.select_by_entity(db, [lyra, region], budget=5)) == subtree[first]
    assert named(book, await subtrees.select_by_entity(db, [second, first], budget=1)) == subtree[first]
    blocks = read_blocks(await db.read_rows_as(BlockRow, "retrieval/document_blocks", doc_key=DOC, max_chars=100))
    assert named(book, blocks.filtered(kinds=["table"])) == {"tb1"}
    assert named(book, blocks.filtered(page_from=3, page_to=5)) == {"t2", "im1", "t3", "eq1"}
    beta = await subtrees.select_by_section(db, [book["2"]])
    assert named(book, blocks.filtered(kinds=["equation"], within=beta)) == {"eq1"}
    assert blocks.filtered() == sorted(blocks.keys, key=lambda k: blocks.nodes[k].order)  # every block, in order
    toc = await subtrees.sections(db, [DOC])
    assert named(book, subtrees.match_section_title(toc, "alpha two")) == {"1.2"}


async def test_pagerank_in_process_and_in_gds_agree_with_a_reference(db: Neo4jClient, book) -> None:
    nodes = [book[n] for n in ("t1", "tb1", "t2", "t3")]
    ursa = await entity(db, "Ursa")
    docs = await subtrees.scope_documents(db, [DOC])
    local = await graph_reasoning(db, nodes, [ursa], documents=docs, engine="local")
    gds = await graph_reasoning(db, nodes, [ursa], documents=docs, engine="gds")
    assert set(local) == set(gds) == set(nodes)
    for key in nodes:
        assert local[key] == pytest.approx(gds[key], abs=1e-4)
    # node score = sum of its entities' PPR: t2 holds Ursa and Vega, so it beats t1 (Ursa alone)
    assert local[book["t2"]] > local[book["t1"]] > local[book["t3"]] > 0
    # the in-process PageRank against networkx on a graph with a weighted triangle and a tail
    edges = [("a", "b", 3.0), ("b", "c", 1.0), ("a", "c", 2.0), ("c", "d", 1.0)]
    ours = pagerank_in_process(list("abcd"), edges, ["a"], damping=0.85, max_iterations=1000, tolerance=1e-12)
    g = nx.Graph()
    g.add_weighted_edges_from(edges)
    reference = nx.pagerank(g, alpha=0.85, personalization={"a": 1}, weight="weight", tol=1e-12, max_iter=1000)
    total = sum(ours.values())
    for n in "abcd":
        assert ours[n] / total == pytest.approx(reference[n], abs=1e-9)
    assert await graph_reasoning(db, nodes, ["not-an-entity"], documents=docs) == {}


def count_reads(db: Neo4jClient) -> list[str]:
    """The names of the queries ``graph.read_rows`` runs from now on (the list fills as they run)."""
    reads: list[str] = []
    real_read_rows = db.read_rows

    async def counting_read_rows(name: str, **params):
        reads.append(name)
        return await real_read_rows(name, **params)

    db.read_rows = counting_read_rows  # type: ignore[method-assign]
    return reads


async def test_entity_graphs_are_read_once_per_graph_version(db: Neo4jClient, book, settings, dimensions,
                                                             tmp_path) -> None:
    from bookrag_neo4j.kg.build import GraphBuilder

    graphs = EntityGraphCache(max_documents=1)
    reads = count_reads(db)
    (doc,) = await subtrees.scope_documents(db, [DOC])
    assert doc.graph_version
    first = await graphs.get(db, doc)
    assert await graphs.get(db, doc) is first and reads.count("retrieval/entity_graph") == 1
    # a rebuilt graph has a new version: read again; a graph whose build is not complete is never kept
    models = Models(llm=None, vlm=None, embedder=NearbyEmbedder(dimensions), reranker=None)  # type: ignore[arg-type]
    local = settings.replace(cache_dir=tmp_path)
    await GraphBuilder(db, local, models, er_mode="basic", extractor=ScriptedExtractor(EXTRACTIONS)).build(
        DOC, force=True)
    (rebuilt,) = await subtrees.scope_documents(db, [DOC])
    assert rebuilt.graph_version != doc.graph_version
    await graphs.get(db, rebuilt)
    building = rebuilt.model_copy(update={"graph": None})  # graph_version None: a build not complete
    await graphs.get(db, building)
    await graphs.get(db, building)
    assert reads.count("retrieval/entity_graph") == 4


async def test_tables_of_contents_are_read_once_per_tree_version(db: Neo4jClient, book) -> None:
    reads = count_reads(db)
    (doc,) = await subtrees.scope_documents(db, [DOC])
    fresh = doc.model_copy(update={"indexed_at": "a tree indexed again"})
    first = await subtrees.table_of_contents(db, [fresh])
    assert await subtrees.table_of_contents(db, [fresh]) == first == await subtrees.sections(db, [DOC])
    assert reads.count("retrieval/sections") == 2  # one read for the two calls, one by sections() itself
    await subtrees.table_of_contents(db, [doc.model_copy(update={"indexed_at": "and again"})])
    assert reads.count("retrieval/sections") == 3


async def test_count_without_llm_and_citations(db: Neo4jClient, book, settings, dimensions) -> None:
    from bookrag_neo4j.llm.reranker import FusionReranker

    embedder = NearbyEmbedder(dimensions)
    agent = Retriever(db, settings, Models(llm=None, vlm=None, embedder=embedder,
                                              reranker=FusionReranker(embedder)))
    answer = await agent.ask("How many tables are in the document?", [DOC])
    assert answer.text == "1" and answer.extractive and answer.plan.category == "global"
    (citation,) = answer.citations
    assert citation.page_start == 2 and citation.section_path == "1 Alpha > 1.1 Alpha one"
    assert citation.label == "handbook.pdf, 1 Alpha > 1.1 Alpha one, p. 2"
    pages = await agent.ask("How many figures are on pages 3 to 5?", [DOC])
    assert pages.text == "1" and pages.citations[0].page_start == 3
    sections = await agent.retrieve("How many sections does the handbook have?", [DOC])
    assert sections.count == 2  # top-level sections, cited first (no content block: not ranked, not cut)
    assert named(book, [n.key for n in sections.nodes[:2]]) == {"1", "2"}
    library = await agent.retrieve("How many tables are in the document?")  # no scope: the whole library
    assert library.count >= int(answer.text) and DOC in [d.key for d in await subtrees.scope_documents(db, None)]
    trace = [t.operator for t in answer.trace]
    assert trace[0] == "Plan" and "Count" in trace and answer.count == 1


async def test_global_filters_too_narrow_are_filled_from_their_range(db: Neo4jClient, book, settings,
                                                                       dimensions) -> None:
    """Filters holding fewer pages than the Skyline's minimum are followed by the rest of their page range, ranked
    after them (a chart drawn as vector text is no image: "how many charts ..." must not come back empty); a
    count cites only what it counted. Pages 3-5 hold t2 and im1 (p. 3), t3 (p. 4) and eq1 (p. 5)."""
    from bookrag_neo4j.llm.reranker import FusionReranker

    embedder = NearbyEmbedder(dimensions)
    agent = Retriever(db, settings, Models(llm=None, vlm=None, embedder=embedder,
                                              reranker=FusionReranker(embedder)))
    said = await agent.retrieve("How many figures on pages 3 to 5 show Lyra growing?", [DOC])
    assert said.count is None and said.nodes[0].key == book["im1"]  # the filtered image first, then its range
    assert named(book, [n.key for n in said.nodes]) == {"im1", "t3", "eq1"}  # t2: on im1's page, shown with it
    none = await agent.retrieve("How many tables on pages 3 to 5 mention Lyra?", [DOC])  # tb1 is on page 2
    assert none.nodes and {p for n in none.nodes for p in n.pages} <= {3, 4, 5}
    assert book["t3"] in [n.key for n in none.nodes]
    counted = await agent.ask("How many figures are on pages 3 to 5?", [DOC])
    assert counted.text == "1" and [c.node_key for c in counted.citations] == [book["im1"]]  # t3, eq1: context
    shown = await agent.retrieve("How many figures are on pages 3 to 5?", [DOC])
    assert shown.count == 1 and named(book, [n.key for n in shown.nodes]) == {"im1", "t3", "eq1"}


async def test_single_hop_retrieval_without_llm(db: Neo4jClient, book, settings, dimensions) -> None:
    from bookrag_neo4j.llm.reranker import FusionReranker

    embedder = NearbyEmbedder(dimensions)
    agent = Retriever(db, settings.replace(skyline_min=2),
                      Models(llm=None, vlm=None, embedder=embedder, reranker=FusionReranker(embedder)))
    evidence = await agent.retrieve("Where does Lyra grow?", [DOC])
    assert evidence.plan.category == "single-hop"
    assert book["t3"] in [n.key for n in evidence.nodes]  # GT-Linked to Lyra, in section 2
    top = next(n for n in evidence.nodes if n.key == book["t3"])
    assert top.graph_score > 0 and top.pages == [4] and top.document == "handbook.pdf"
    assert {"Extract", "Select_by_Entity", "Select_by_Section", "Graph_Reasoning", "Text_Reasoning",
            "Skyline_Ranker"} <= {t.operator for t in evidence.trace}
    # the engine is in the trace: the plugin by default where the server has it, in-process when asked
    assert [t.engine for t in evidence.trace if t.operator == "Graph_Reasoning"] in (["plugin"], ["gds"])
    on_local = Retriever(db, settings.replace(skyline_min=2, ppr_engine="local"), agent.models)
    local = await on_local.retrieve("Where does Lyra grow?", [DOC])
    assert [t.engine for t in local.trace if t.operator == "Graph_Reasoning"] == ["local"]
    assert [(n.key, round(n.graph_score, 4)) for n in local.nodes] == [
        (n.key, round(n.graph_score, 4)) for n in evidence.nodes]
    lyra = await entity(db, "Lyra")
    assert lyra in evidence.seeds  # the question's linked entities are a field, not trace text
    assert "Reduce" not in {t.operator for t in evidence.trace}  # retrieval runs only what the evidence needs
    answer = await agent.ask("Where does Lyra grow?", [DOC])
    assert answer.extractive and "— handbook.pdf" in answer.text


async def test_ask_with_a_scripted_llm_cites_what_it_used(db: Neo4jClient, book, settings, dimensions) -> None:
    from bookrag_neo4j.llm.reranker import FusionReranker

    def reply(messages: list[dict]) -> str:
        system, user = messages[0]["content"], messages[1]["content"]
        if system.startswith("You classify"):
            return json.dumps({"category": "multi-hop" if "larger" in user else "single-hop"})
        if system.startswith("You decompose"):
            return json.dumps({"sub_questions": [{"question": "Where does Lyra grow?", "type": "retrieval"},
                                                 {"question": "What did Vega merge with?", "type": "retrieval"},
                                                 {"question": "Which is larger?", "type": "synthesis"}]})
        if system.startswith("You list the entities"):
            name = "Lyra" if "Lyra" in user else "Vega"
            return json.dumps({"entities": [{"name": name, "type": "ORGANIZATION", "description": ""}],
                               "relations": []})
        if system.startswith("You pick the sections"):
            return json.dumps({"section_ids": [3]})  # "2 Beta" is the fourth line of the table of contents
        if system.startswith("You answer a question from a few"):
            first = user.split("Evidence:\n", 1)[1].split("\n", 2)[1]
            return json.dumps({"answer": f"partial: {first[:20]}", "sources": [1]})
        evidence = user.split("Evidence:\n", 1)[1]
        number = next(i for i in range(1, 20)
                      if f"[{i}]" in evidence and "t3 Vega grows" in evidence.split(f"[{i}]")[1][:200])
        return json.dumps({"answer": f"Lyra [{number}]", "sources": [number]})

    llm = ScriptedChatModel(reply)
    embedder = NearbyEmbedder(dimensions)
    agent = Retriever(db, settings.replace(skyline_min=2),
                      Models(llm=llm, vlm=None, embedder=embedder, reranker=FusionReranker(embedder)))
    answer = await agent.ask("Where does Lyra grow?", [DOC])
    assert not answer.extractive and answer.text.startswith("Lyra [")
    (citation,) = answer.citations
    assert citation.node_key == book["t3"] and citation.page_start == 4
    operators = {t.operator: t for t in answer.trace}
    assert operators["Reduce"].llm_calls == 1 and operators["Plan"].llm_calls == 1
    assert operators["Select_by_Section"].output == "3 nodes"  # the subtree of "2 Beta"
    multi = await agent.ask("Which is larger, Lyra or Vega?", [DOC])
    assert multi.plan.category == "multi-hop" and sum(t.operator == "Extract" for t in multi.trace) == 2
    assert [g.question for g in multi.groups] == ["Where does Lyra grow?", "What did Vega merge with?"]
    assert book["t3"] in multi.groups[0].keys and all(set(g.keys) <= {n.key for n in multi.evidence}
                                                       for g in multi.groups)
    maps = [r for r in llm.requests if r[0]["content"].startswith("You answer a question from a few")]
    assert len(maps) == 2  # Map: one partial answer per retrieval sub-question
    assert {m[1]["content"].split("\n")[0] for m in maps} == {"Question: Where does Lyra grow?",
                                                              "Question: What did Vega merge with?"}
    assert multi.citations and multi.citations[0].node_key == book["t3"]


async def test_bench_scale_grows_the_library(db: Neo4jClient, book, settings, dimensions) -> None:
    from bookrag_neo4j.eval.bench_scale import bench_scale
    from bookrag_neo4j.llm.reranker import FusionReranker

    embedder = NearbyEmbedder(dimensions)
    agent = Retriever(db, settings, Models(llm=None, vlm=None, embedder=embedder,
                                              reranker=FusionReranker(embedder)), use_llm=False)
    library = [d for d in await subtrees.scope_documents(db, None) if d.graph_version]
    rows = await bench_scale(agent, ["Where does Lyra grow?"], sizes=[1, 2, len(library) + 1], repeat=1)
    assert [r.documents for r in rows] == [n for n in (1, 2) if n <= len(library)]  # not beyond the library
    assert rows[-1].tree_nodes >= rows[0].tree_nodes > 0 and rows[-1].entities >= rows[0].entities
    assert all(r.with_model_inference.p50_ms >= r.without_model_inference.p50_ms > 0 for r in rows)


def run_context(db: Neo4jClient, settings, dimensions, documents) -> RunContext:
    from bookrag_neo4j.llm.reranker import FusionReranker

    embedder = NearbyEmbedder(dimensions)
    return RunContext(db, settings, Models(llm=None, vlm=None, embedder=embedder, reranker=FusionReranker(embedder)),
                      None, documents)


async def test_shared_search_operators(db: Neo4jClient, book, settings, dimensions) -> None:
    ctx = run_context(db, settings, dimensions, await subtrees.scope_documents(db, [DOC]))
    lexical = await execute(Plan(question="q", steps=[
        PlanStep(id="lex", operator="Lexical_Search", params={"question": "Where did Vega (merge)?"})]), ctx)
    assert named(book, lexical.outputs["lex"].keys) == {"t2", "t3"}  # the full-text index, Lucene syntax escaped
    toc = await execute(Plan(question="q", steps=[
        PlanStep(id="toc", operator="TOC_Select", params={"question": "alpha two", "top": 1})]), ctx)
    assert named(book, toc.outputs["toc"].keys) == {"1.2", "t2", "im1"}
    # the offline Select_by_Section: the sections around the nearest blocks and those whose path matches, united
    question = Question("What grows in Beta?", vector=(await ctx.models.embedder.embed(["What grows in Beta?"]))[0])
    hits = [hit for doc in ctx.documents for hit in (await ctx.blocks(doc)).nearest(
        await ctx.similarities(doc, question.vector), 1)]
    near = await subtrees.subtrees_near(db, hits, top=1, depth=2)
    one = RunContext(db, settings.replace(max_sections=1), ctx.models, None, ctx.documents)
    section = await execute(Plan(question="q", steps=[
        PlanStep(id="embed", operator="Embed", params={"question": question.text}),
        PlanStep(id="section", operator="Select_by_Section", after=["embed"])]), one)
    assert not {"t3", "eq1"} & named(book, near)  # the nearest block is elsewhere: the title brings "2 Beta"
    assert set(section.outputs["section"].keys) == set(near) | {book["2"], book["t3"], book["eq1"]}
    rows = await db.run("MATCH (a:TreeNode {key: $k})-[:NEXT]-(b) RETURN b.key AS k", {"k": book["t2"]})
    expanded = await execute(Plan(question="q", steps=[
        PlanStep(id="lex", operator="Lexical_Search", params={"question": "merged", "top": 1}),
        PlanStep(id="next", operator="Expand", params={"relation": "next", "budget": 10}, after=["lex"])]), ctx)
    assert set(expanded.outputs["next"].keys) == {book["t2"], *(r["k"] for r in rows)} and rows
    read = await execute(Plan(question="q", steps=[PlanStep(id="cypher", operator="Guarded_Read", params={
        "query": "MATCH (n:TreeNode) WHERE n.doc_key IN $doc_keys AND n.kind = $kind RETURN n.key AS key",
        "parameters": {"kind": "table"}})]), ctx)
    assert named(book, read.outputs["cypher"].keys) == {"tb1"}
    with pytest.raises(StepError, match="only read-only Cypher") as refused:
        await execute(Plan(question="q", steps=[PlanStep(id="cypher", operator="Guarded_Read", params={
            "query": "MATCH (n:TreeNode) WHERE n.doc_key IN $doc_keys SET n.x = 1 RETURN n.key AS key"})]), ctx)
    assert isinstance(refused.value.__cause__, QueryRefusedError)
    assert not await db.run("MATCH (n:TreeNode {doc_key: $d}) WHERE n.x IS NOT NULL RETURN n", {"d": DOC})


async def test_a_selection_also_takes_the_documents_own_best_blocks(db: Neo4jClient, book, settings,
                                                                   dimensions) -> None:
    documents = await subtrees.scope_documents(db, [DOC])
    plan = Plan(question="q", steps=[  # a selection elsewhere than the answer: section 1.2 for a question on Lyra
        PlanStep(id="toc", operator="TOC_Select", params={"question": "alpha two", "top": 1}),
        PlanStep(id="embed", operator="Embed", params={"question": "Where does Lyra grow?"}),
        PlanStep(id="fetch", operator="Fetch", after=["toc", "embed"])])
    found = {}
    for hits in (0, 1):
        local = settings.replace(selection_hits=hits, skyline_min=1)  # never widened to the scope
        found[hits] = named(book, (await execute(plan, run_context(db, local, dimensions, documents))
                                   ).outputs["fetch"].keys)
    assert found[0] == {"t2", "im1"}  # the selection alone
    assert found[1] == {"t2", "im1", "t3"}  # and the block BM25 ranks first (t3: "Lyra", "grows"; no embeddings here)


async def test_filters_chain_into_one_selection(db: Neo4jClient, book, settings, dimensions) -> None:
    ctx = run_context(db, settings, dimensions, await subtrees.scope_documents(db, [DOC]))
    run = await execute(Plan(question="q", steps=[
        PlanStep(id="pages", operator="Filter_Range", params={"type": "page", "value": "3-5"}),
        PlanStep(id="section", operator="Filter_Range", params={"type": "section", "value": "Beta"}, after=["pages"]),
        PlanStep(id="kinds", operator="Filter_Modal", params={"type": "equation"}, after=["section"]),
        PlanStep(id="or_text", operator="Filter_Modal", params={"type": "text"}, after=["kinds"]),
        PlanStep(id="count", operator="Count", after=["or_text"])]), ctx)
    assert named(book, run.outputs["pages"].keys) == {"t2", "im1", "t3", "eq1"}
    assert named(book, run.outputs["section"].keys) == {"t3", "eq1"}
    assert named(book, run.outputs["kinds"].keys) == {"eq1"}
    assert named(book, run.outputs["or_text"].keys) == {"t3", "eq1"}  # kinds are alternatives
    assert run.outputs["count"].count == 2 and [t.output for t in run.trace][-1] == "2 evidence nodes, count 2"


async def test_a_run_computes_a_documents_similarities_once(db: Neo4jClient, book, settings, dimensions,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Select_by_Section, Fetch and Text_Reasoning read the question's similarities to a document's blocks from
    one query of the run (computed in Neo4j), and the steps that miss the blocks' cache at once share one read."""
    from bookrag_neo4j.retrieval.document_blocks import BLOCKS

    ctx = run_context(db, settings, dimensions, [])
    agent = Retriever(db, settings, ctx.models, use_llm=False)
    asked: list[str] = []
    read_rows = db.read_rows

    async def counted(name: str, **params: object) -> list:
        asked.append(name)
        return await read_rows(name, **params)

    monkeypatch.setattr(db, "read_rows", counted)
    BLOCKS.keep(0)  # nothing kept: the first run reads the blocks
    BLOCKS.keep(settings.retrieval.cache_documents)
    reads = []
    for question in ("What grows in Beta?", "Where did Vega merge?"):
        asked.clear()
        evidence = await agent.retrieve(question, [DOC], method="bookrag")
        steps = [t.operator for t in evidence.trace]
        assert evidence.nodes and {"Select_by_Section", "Fetch", "Text_Reasoning"} <= set(steps)
        similarities = [name for name in asked  # Cypher's or the plugin's
                        if name in ("retrieval/block_similarities", "plugin/block_similarity_array")]
        assert len(similarities) == steps.count("Embed")  # once a run's question
        reads.append(asked.count("retrieval/document_blocks"))
    assert reads == [1, 0]  # one read by the first run's steps together, then kept
