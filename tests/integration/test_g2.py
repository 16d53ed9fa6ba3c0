"""G²-Reader on a real paper's content graph: window edges exactly |i - j| <= w, KNN links within K, an idempotent
rebuild and a delete that leaves the layout layer, the readout within k, every variant end to end, the full
loop with a scripted LLM (recorded replies), and LLM evolution writing 'llm' links."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bookrag_neo4j.content.build import ContentGraphBuilder
from bookrag_neo4j.db.client import Neo4jClient
from bookrag_neo4j.library.catalogue import delete_content_graph
from bookrag_neo4j.library.documents import get_document
from bookrag_neo4j.llm import Models
from bookrag_neo4j.llm.scripted import ScriptedChatModel
from bookrag_neo4j.methods import METHODS, Retriever
from bookrag_neo4j.retrieval.g2.readout import _similarities, readout
from bookrag_neo4j.retrieval.units import nearest_units, row_similarities, table_rows
from bookrag_neo4j.text.lexical import LexicalStats

from ..helpers.pdfs import ACL_PAPER
from ..helpers.server import external
from ..helpers.timeouts import LONG_TEST

pytestmark = pytest.mark.timeout(LONG_TEST)

PAPER = ACL_PAPER
VARIANTS = ("g2", "g2-t0", "g2-no-readout", "g2-flat", "g2-no-plan", "g2-tau0")


@pytest.fixture(scope="module")
def models(offline_models: Models) -> Models:
    return offline_models


@pytest.fixture
def paper(acl_paper: str) -> str:
    return acl_paper


async def _links(db: Neo4jClient, doc: str) -> list[dict]:
    return await db.run("""
        MATCH (a:ContentNode {doc_key: $doc})-[r:G2_LINK]->(b:ContentNode)
        RETURN a.key AS a, b.key AS b, a.g2_order AS i, b.g2_order AS j, r.kind AS kind, r.t AS t, r.score AS score
        ORDER BY a, b, kind""", {"doc": doc})


async def test_the_content_graph_is_built_idempotently_and_deleted(db: Neo4jClient, settings, models,
                                                                   paper) -> None:
    builder = ContentGraphBuilder(db, settings, models.embedder)
    report = await builder.build(paper, evolution="lite")
    counts = report.counts
    (nodes,) = await db.run("""
        MATCH (p:Passage {doc_key: $doc})
        RETURN count(p) AS passages,
               COUNT { MATCH (:Passage {doc_key: $doc})-[:COVERS]->(b) WHERE b.kind IN ['table', 'image'] RETURN b }
                 AS figures,
               COUNT { MATCH (n:ContentNode {doc_key: $doc}) WHERE n.g2_embedding IS NULL OR n.g2_summary IS NULL
                       OR n.g2_embedding0 IS NULL RETURN n } AS incomplete""", {"doc": paper})
    assert counts.nodes == nodes["passages"] + nodes["figures"] > 0 and nodes["incomplete"] == 0 and nodes["figures"]
    links = await _links(db, paper)
    window = [r for r in links if r["kind"] == "window"]
    w, n = settings.g2.window, counts.nodes
    assert all(1 <= r["j"] - r["i"] <= w and r["t"] == 0 for r in window)  # exactly |i - j| <= w, once a pair
    assert len(window) == len({(r["i"], r["j"]) for r in window}) == sum(n - d for d in range(1, w + 1))
    knn = [r for r in links if r["kind"] == "knn"]
    out: dict[str, int] = {}
    for r in knn:
        out[r["a"]] = out.get(r["a"], 0) + 1
    assert knn and max(out.values()) <= settings.g2.k and all(1 <= r["t"] <= settings.g2.rounds for r in knn)
    assert counts.window_links == len(window) and counts.knn_links == len(knn)
    doc = await get_document(db, paper)
    assert doc.g2_counts == counts and doc.g2_rounds == settings.g2.rounds and doc.g2_evolution == "lite"

    assert (await builder.build(paper, evolution="lite")).status == "unchanged"
    rebuilt = await builder.build(paper, evolution="lite", force=True)
    assert rebuilt.counts == counts and await _links(db, paper) == links  # deterministic

    await delete_content_graph(db, paper)
    (left,) = await db.run("""
        RETURN COUNT { MATCH (n:ContentNode {doc_key: $doc}) RETURN n } AS nodes,
               COUNT { MATCH (n {doc_key: $doc}) WHERE n.g2_embedding IS NOT NULL RETURN n } AS embedded,
               COUNT { MATCH ()-[r:G2_LINK]->(:Passage {doc_key: $doc}) RETURN r } AS links,
               COUNT { MATCH (:TreeNode {doc_key: $doc})-[r:HAS_KEYWORD]->() RETURN r } AS figure_keywords,
               COUNT { MATCH (p:Passage {doc_key: $doc}) RETURN p } AS passages""", {"doc": paper})
    assert left == {"nodes": 0, "embedded": 0, "links": 0, "figure_keywords": 0, "passages": nodes["passages"]}
    assert (await get_document(db, paper)).g2 is None


async def test_the_readout_stays_within_k_and_every_variant_runs(db: Neo4jClient, settings, models,
                                                                 paper) -> None:
    report = await ContentGraphBuilder(db, settings, models.embedder).build(paper)
    assert report.evolution == "off" and not report.counts.knn_links  # by default, evolution is left out
    doc = await get_document(db, paper)
    question = "Which model performs best in the closed-book setting?"
    (vector,) = await models.embedder.embed([question])
    for k, neighbours in ((1, 3), (3, 3), (7, 5), (12, 0)):
        keys = await readout(db, [doc], question, vector, k=k, neighbours=neighbours)
        assert len(keys) == len(set(keys)) == k
    # the best hit brings its linked node nearest to the question (the probe's own ranking) before the second hit
    top = await readout(db, [doc], question, vector, k=2, neighbours=0)
    best = top[0]
    (linked,) = await db.run("""
        MATCH (n:ContentNode {key: $key})-[:G2_LINK]-(m:ContentNode)
        RETURN collect(DISTINCT {key: m.key, embedding: m.g2_embedding}) AS nodes""", {"key": best})
    nearest = max(linked["nodes"], key=lambda m: np.asarray(m["embedding"]) @ np.asarray(vector))
    one = await readout(db, [doc], question, vector, k=2, neighbours=1)  # the same k: the same probe
    assert len(linked["nodes"]) > 1 and one == [best, nearest["key"]] != top

    retriever = Retriever(db, settings, models, use_llm=False)
    assert set(VARIANTS) <= set(METHODS)
    for method in VARIANTS:
        answer = await retriever.ask(question, [paper], method=method)
        assert answer.evidence and answer.citations and len(answer.evidence) <= 10, method
        assert all(c.page_start >= 1 and c.document == PAPER.name for c in answer.citations), method
    # LLM-free, the planning graph is left out too: g2 reads the question's readout, as g2-no-plan does
    planned, alone = [await retriever.retrieve(question, [paper], method=m) for m in ("g2", "g2-no-plan")]
    step = next(t for t in planned.trace if t.operator == "G2_Plan")
    assert not step.details and [n.key for n in planned.nodes] == [n.key for n in alone.nodes]


@pytest.mark.skipif(external(), reason="the plugin is loaded into the managed server only")
async def test_the_plugin_scores_units_rows_and_content_nodes_as_the_client_does(db: Neo4jClient, settings, models,
                                                                                  paper) -> None:
    """SuperRAG's passages and table rows and G²'s content nodes, scored in the server by the plugin (no embedding
    read into the client) and on the embeddings read into the client: the same scores within float rounding, the
    same ranks but for exact ties (the plugin breaks them by key)."""
    await ContentGraphBuilder(db, settings, models.embedder).build(paper)
    doc = await get_document(db, paper)
    vectors = await models.embedder.embed(["Which model performs best in the closed-book setting?", "Table 3"])
    for vector in vectors:
        for kind in ("passage", "row"):
            client, server = [await nearest_units(db, doc, vector, kind=kind, top=1000, engine=e)
                              for e in ("cypher", "plugin")]
            assert client and sorted(k for k, _ in client) == sorted(k for k, _ in server), kind
            scores = dict(client)
            assert [s for _, s in server] == pytest.approx([scores[k] for k, _ in server], abs=1e-6)
            assert all(a >= b for (_, a), (_, b) in zip(server, server[1:], strict=False))  # best first
            assert server[:3] == sorted(server, key=lambda x: (-x[1], x[0]))[:3]  # ties by key
        tables = await table_rows(db, doc, engine="cypher")
        held = list(tables.spans)
        assert held and await row_similarities(db, doc, tables, vector, engine="cypher") is None
        scored = await row_similarities(db, doc, tables, vector, engine="plugin")
        assert set(scored or {}) == set(held)
        _, client = tables.best(held, held, "q", vector, LexicalStats.of(["q"]))
        assert client == pytest.approx([scored[t] for t in held], abs=1e-6)
        assert (await table_rows(db, doc, engine="plugin")).vectors.size == 0  # no embedding read
        for evolved in (True, False):
            client, server = [await _similarities(db, doc, vector, evolved=evolved, engine=e)
                              for e in ("cypher", "plugin")]
            assert list(client) == list(server)  # every content node, in reading order
            assert all(abs(client[k] - server[k]) < 1e-6 for k in client)
    question = "Which model performs best in the closed-book setting?"
    for method in ("superrag", "hybrid", "dense", "g2"):  # passages, rows, ToC titles and content nodes
        found = [await Retriever(db, settings.replace(vector_engine=e), models, use_llm=False).retrieve(
            question, [paper], method=method) for e in ("cypher", "plugin")]
        assert [n.key for n in found[0].nodes] == [n.key for n in found[1].nodes], method


async def test_the_full_loop_with_a_scripted_llm(db: Neo4jClient, settings, models, paper) -> None:
    await ContentGraphBuilder(db, settings, models.embedder).build(paper)
    checks = iter(['<check>{"sufficient": false, "gaps": ["the closed-book scores"]}</check>',
                   "I cannot tell", "still no JSON",  # unparsable: recorded, not a round
                   '<check>{"sufficient": true, "gaps": []}</check>'])

    def reply(messages: list[dict]) -> str:
        system, user = messages[0]["content"], messages[-1]["content"]
        if "initial decomposer" in system:
            return ('<dag>{"nodes": [{"id": "root", "task": "q", "children": ["n1"]}, '
                    '{"id": "n1", "task": "Which models are compared closed-book?", "children": []}]}</dag>')
        if "refinement decomposer" in system:
            return ('<dag>{"nodes": [{"id": "root", "task": "q", "children": ["n1", "n2"]}, '
                    '{"id": "n1", "task": "Which models are compared closed-book?", "children": []}, '
                    '{"id": "n2", "task": "What are the closed-book scores?", "children": []}]}</dag>')
        if "evidence checker" in system:
            return next(checks)
        if "the reasoner" in system:
            assert "Which models are compared closed-book?" in user  # the trajectory
            return "<thought>the scores</thought><output>ChatGPT performs best.</output>"
        return "<thought>…</thought><output>an answer</output>"

    llm = ScriptedChatModel(reply)
    retriever = Retriever(db, settings, Models(llm=llm, vlm=None, embedder=models.embedder,
                                                  reranker=models.reranker))
    answer = await retriever.ask("Which model performs best in the closed-book setting?", [paper], method="g2")
    assert answer.text == "ChatGPT performs best." and answer.citations
    step = next(t for t in answer.trace if t.operator == "G2_Plan")
    assert step.output.startswith("10 kept, 2 round(s), verdicts [False, True], 1 checker failure(s)")
    assert "n2: What are the closed-book scores?" in "\n".join(step.details)


async def test_llm_evolution_writes_llm_links(db: Neo4jClient, settings, models, paper) -> None:
    def reply(messages: list[dict]) -> str:
        if "appendix E.6" in messages[0]["content"]:
            return json.dumps({"keywords": ["closed-book", "evaluation"], "summary": "A part of the paper.",
                               "tags": ["paper"]})
        prompt = "\n".join(str(m["content"]) for m in messages)
        neighbour = prompt.split("content):\n", 1)[1].split(":", 1)[0]
        return json.dumps({"suggested_connections": [neighbour], "should_update": True,
                           "new_summary": "A part of the paper, linked.", "new_keywords": ["linked"]})

    llm = ScriptedChatModel(reply)
    small = settings.replace(g2_rounds=1)
    report = await ContentGraphBuilder(db, small, models.embedder, llm=llm).build(paper, evolution="llm")
    assert report.evolution == "llm" and report.counts.llm_links == report.counts.nodes and not report.counts.knn_links
    (row,) = await db.run("""MATCH (n:ContentNode {doc_key: $doc})
                                RETURN collect(DISTINCT n.g2_summary) AS summaries""", {"doc": paper})
    assert row["summaries"] == ["A part of the paper, linked."]
    with pytest.raises(Exception, match="needs an LLM"):
        await ContentGraphBuilder(db, small, models.embedder).build(paper, evolution="llm")


async def test_h0_is_the_stored_text_embedding_or_the_summary_embedded(db: Neo4jClient, settings, models,
                                                                        paper) -> None:
    async def initial() -> list[dict]:
        return await db.run("""
            MATCH (n:ContentNode {doc_key: $doc}) WHERE n.embedding IS NOT NULL
            RETURN n.key AS key, n.embedding AS stored, n.g2_embedding0 AS h0, n.g2_summary AS summary,
                   n.g2_keywords AS keywords ORDER BY n.g2_order LIMIT 5""", {"doc": paper})

    def unit(v) -> np.ndarray:
        return np.asarray(v, dtype=float) / np.linalg.norm(v)

    text = await ContentGraphBuilder(db, settings.replace(g2_node_embedding="text"),
                                     models.embedder).build(paper, force=True)
    assert "|h0-text|" in text.config
    rows = await initial()
    assert rows and all(np.allclose(unit(r["stored"]), r["h0"], atol=1e-6) for r in rows)
    summary = await ContentGraphBuilder(db, settings.replace(g2_node_embedding="summary"),
                                        models.embedder).build(paper)  # another config: rebuilt without force
    assert summary.status == "built" and "|h0-summary|" in summary.config
    rows = await initial()
    embedded = await models.embedder.embed([f"{r['summary']} keywords: {', '.join(r['keywords'])}" for r in rows])
    # the same texts embedded alone and in the build's batch agree to the bfloat16 products' precision
    assert all(unit(e) @ r["h0"] > 0.9999 for e, r in zip(embedded, rows, strict=True))
    assert all(unit(r["stored"]) @ r["h0"] < 0.99 for r in rows)
