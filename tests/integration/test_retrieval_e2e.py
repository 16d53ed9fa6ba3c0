"""End to end on a real dev-benchmark PDF (the RAG survey, no LLM): the SDK's retrieve finds the gold
evidence pages of a benchmark question; `bookrag retrieve --json` and `bookrag ask` through the CLI."""

from __future__ import annotations

import json

import pytest

from bookrag_neo4j import BookRAG
from bookrag_neo4j.keys import file_key
from bookrag_neo4j.methods import METHODS
from bookrag_neo4j.retrieval.plan import Plan, PlanStep

from ..helpers import readme_example
from ..helpers.cli import run_cli
from ..helpers.pdfs import RAG_SURVEY, need
from ..helpers.timeouts import LONG_TEST
from ..helpers.walk import traced

# The first test also waits for the module's fixture: the RAG survey indexed with its knowledge graph.
pytestmark = pytest.mark.timeout(LONG_TEST)

# mmlb-0082 of ../shared/benchmarks/mmlongbench/questions.jsonl
QUESTION = "Which method integrates knowledge into white-box models via directive fine-tuning?"
GOLD_PAGES = {9, 10}


@pytest.fixture(scope="module")
def survey(settings, neo4j_server) -> str:
    rag = BookRAG(settings, use_llm=False)
    report = rag.index(need(RAG_SURVEY))  # tree + embeddings + graph; a no-op when already indexed
    assert report.graph is not None and report.graph.entities > 1000
    yield RAG_SURVEY.name
    rag.delete(file_key(RAG_SURVEY))  # teardown: the next module indexes it afresh


def test_sdk_retrieve_finds_the_gold_pages(settings, survey) -> None:
    rag = BookRAG(settings, use_llm=False)
    evidence = rag.retrieve(QUESTION, doc=survey)
    assert evidence.plan.category == "single-hop" and 1 < len(evidence.evidence) <= settings.bookrag.skyline_max
    assert rag.retrieve(QUESTION, doc=survey, top_k=1).evidence == evidence.evidence[:1]  # top_k: the best, in order
    pages = set(evidence.pages[survey])
    assert pages & GOLD_PAGES, f"evidence pages {sorted(pages)} miss the gold pages {sorted(GOLD_PAGES)}"
    # every node cites its section, except front matter before the first section (the abstract, page 1)
    assert all(n.document == survey and (n.section_path or n.page_start == 1) for n in evidence.nodes)
    answer = rag.ask(QUESTION, doc=survey)
    assert answer.extractive and answer.citations and answer.citations[0].label.startswith(survey)
    tables = rag.ask("How many tables are in the paper?", doc=survey)
    assert tables.text.isdigit() and int(tables.text) == len(tables.citations) >= 2


def test_a_figure_or_table_named_by_number_comes_first(settings, survey) -> None:
    # the survey's "Fig. 3." (page 4) and "TABLE III" (page 14): without the reference, a page-10 paragraph on
    # the paradigms led the first question's evidence
    rag = BookRAG(settings, use_llm=False)
    for question, kind, page in (("In figure 3, how many distinct icons are used?", "image", 4),
                                 ("Which metrics does Table III list?", "table", 14)):
        evidence = rag.retrieve(question, doc=survey)
        first = evidence.nodes[0]
        assert (first.kind, first.page_start) == (kind, page) and first.text_score > 1, question
        assert any(t.operator == "Text_Reasoning" and "1 named first" in t.output for t in evidence.trace)
    # Fetch takes a named block outside the selection, also with the selection alone (no first-stage hits)
    question = "In figure 3, how many distinct icons are used?"
    plan = Plan(question=question, steps=[
        PlanStep(id="toc", operator="TOC_Select", params={"question": "Evaluation Benchmarks and Tools", "top": 1}),
        PlanStep(id="embed", operator="Embed", params={"question": question}),
        PlanStep(id="fetch", operator="Fetch", after=["toc", "embed"]),
        PlanStep(id="text", operator="Text_Reasoning", after=["fetch", "embed"]),
        PlanStep(id="rank", operator="Top_K", params={"by": "text", "k": 3}, after=["fetch", "text"]),
        PlanStep(id="evidence", operator="Fetch_Evidence", after=["rank"])], output="evidence")
    alone = BookRAG(settings.replace(selection_hits=0, skyline_min=1), use_llm=False)
    nodes = alone.retrieve(question, doc=survey, plan=plan).nodes
    assert (nodes[0].kind, nodes[0].page_start) == ("image", 4) and {n.page_start for n in nodes[1:]} - {4}


def test_cli_retrieve_and_ask(settings, survey) -> None:
    proc = run_cli(settings, "retrieve", QUESTION, "--doc", survey, "--no-llm", "--json", "--top-k", "2")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert len(result["evidence"]) == 2
    node = result["evidence"][0]
    assert {"key", "kind", "pages", "section_path", "graph_score", "text_score"} <= set(node)
    assert result["plan"]["category"] == "single-hop" and result["trace"]
    asked = run_cli(settings, "ask", QUESTION, "--doc", survey, "--no-llm", "--explain")
    assert asked.returncode == 0, asked.stderr
    assert "Sources:" in asked.stdout and f"[1] {survey}" in asked.stdout
    assert "Skyline_Ranker" in asked.stderr  # --explain prints the plan and the trace


def test_bench_query_reports_percentiles(settings, survey, tmp_path) -> None:
    plot = tmp_path / "operators.png"
    proc = run_cli(settings, "bench", "query", survey, "--question", QUESTION, "--question", "How many tables are there?",
                   "--repeat", "1", "--no-llm", "--json", "--plot", str(plot))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["runs"] == 2 and report["document"] == survey
    quiet, loud = report["without_model_inference"], report["with_model_inference"]
    assert 0 < quiet["p50_ms"] <= quiet["p95_ms"] and quiet["p50_ms"] <= loud["p50_ms"]
    assert {"Select_by_Entity", "Graph_Reasoning", "Skyline_Ranker", "Count"} <= set(report["per_operator_without_model"])
    import matplotlib.image

    assert matplotlib.image.imread(plot).shape[1] > 300
    whole = run_cli(settings, "bench", "query", "--library", "--question", QUESTION, "--repeat", "1", "--no-llm",
                    "--json")
    assert whole.returncode == 0, whole.stderr
    assert json.loads(whole.stdout)["document"].startswith("the library (") and json.loads(whole.stdout)["runs"] == 1
    both = run_cli(settings, "bench", "query", survey, "--library", "--question", QUESTION, "--no-llm")
    assert both.returncode != 0 and "give a document, or --library" in both.stderr


@pytest.mark.parametrize("method", list(METHODS))
def test_every_method_retrieves_and_answers(settings, survey, method: str) -> None:
    rag = BookRAG(settings, use_llm=False)
    evidence = rag.retrieve(QUESTION, doc=survey, method=method)
    budget = 13 if method.startswith("superrag") else 10  # SuperRAG: 10 contexts and 3 tables or diagrams
    assert evidence.plan.method == method and 1 <= len(evidence.nodes) <= budget
    assert all(n.document == survey and n.pages for n in evidence.nodes)
    assert [n.rank for n in evidence.nodes] == list(range(1, len(evidence.nodes) + 1))
    answer = rag.ask(QUESTION, doc=survey, method=method)
    assert answer.extractive and answer.citations and answer.citations[0].label.startswith(survey)
    assert [n.key for n in answer.evidence] == [n.key for n in evidence.nodes]  # deterministic


def test_a_saved_plan_runs_again(settings, survey, tmp_path) -> None:
    first = run_cli(settings, "retrieve", QUESTION, "--doc", survey, "--no-llm", "--json")
    assert first.returncode == 0, first.stderr
    result = json.loads(first.stdout)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(result["plan"]))
    again = run_cli(settings, "retrieve", "ignored: the plan holds the question", "--doc", survey, "--plan", str(plan),
                    "--json")
    assert again.returncode == 0, again.stderr
    assert [n["key"] for n in json.loads(again.stdout)["evidence"]] == [n["key"] for n in result["evidence"]]
    # an edited step: the Skyline replaced by the reranker's best 3
    edited = result["plan"]
    skyline = next(s for s in edited["steps"] if s["operator"] == "Skyline_Ranker")
    skyline.update(operator="Top_K", params={"by": "text", "k": 3})
    plan.write_text(json.dumps(edited))
    top3 = run_cli(settings, "retrieve", QUESTION, "--doc", survey, "--plan", str(plan), "--json", "--explain")
    assert top3.returncode == 0, top3.stderr
    assert len(json.loads(top3.stdout)["evidence"]) == 3
    broken = next(s for s in edited["steps"] if s["operator"] == "Top_K")
    broken["params"] = {"by": "nonsense"}
    plan.write_text(json.dumps(edited))
    refused = run_cli(settings, "retrieve", QUESTION, "--doc", survey, "--plan", str(plan))
    assert refused.returncode == 1 and "invalid parameters" in refused.stderr
    listed = run_cli(settings, "methods", "--json")
    assert sorted(m["name"] for m in json.loads(listed.stdout)) == sorted(METHODS)  # the order: test_cli_help.py


@pytest.fixture
def agreement_method():
    """The README's worked example: an operator and a method, registered for one test."""
    yield readme_example.register()
    readme_example.unregister()


def test_the_readme_example_operator_and_method(settings, survey, agreement_method: str) -> None:
    rag = BookRAG(settings, use_llm=False)
    evidence = rag.retrieve(QUESTION, doc=survey, method=agreement_method)
    assert 1 <= len(evidence.nodes) <= 5 and set(evidence.pages[survey]) & GOLD_PAGES
    steps = {t.step: t for t in evidence.trace}
    assert steps["both"].inputs[0].startswith("lexical: ") and steps["rerank"].output.endswith("kept")
    assert "Reduce" not in {t.operator for t in evidence.trace}


def test_a_page_the_question_names_comes_first(settings, survey) -> None:
    # the survey prints its page numbers as the PDF counts them; "the first page" is the PDF's first
    rag = BookRAG(settings, use_llm=False)
    for question, page in (("What does the figure on page 7 show?", 7),
                           ("Which institutions are named on the first page?", 1)):
        evidence = rag.retrieve(question, doc=survey)
        assert evidence.nodes[0].page_start == page and evidence.nodes[0].text_score > 1, question
        assert any(t.operator == "Text_Reasoning" and " named first" in t.output for t in evidence.trace)


@pytest.mark.parametrize("method", ["bookrag", "hybrid", "bm25", "superrag", "g2"])
async def test_a_question_walks_down_the_import_graph(settings, survey, method: str) -> None:
    """Every call from one part of the package into another follows an import, asked first (the process reads
    the document's copies, unless an earlier test did) and again: no callback handed down into a lower room and no
    climb back. The layers the methods read are built first: a current layer asks no builder."""
    rag = BookRAG(settings, use_llm=False)
    try:
        await rag.abuild_content_graph(survey)  # with the layout layer under it; a no-op when current
        walks = []
        for _ in ("first", "again"):
            with traced() as walk:
                await rag.aretrieve(QUESTION, doc=survey, method=method)
            walks.append(walk)
    finally:
        await rag.aclose()
    for walk in walks:
        assert {"sdk", "methods", "ops", "retrieval", "db"} <= set(walk.rooms), walk.lines(method)
        assert not walk.against_imports(), walk.lines(method)
