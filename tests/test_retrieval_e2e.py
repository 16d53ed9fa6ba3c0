"""End to end on a real dev-benchmark PDF (the RAG survey, no LLM): the SDK's retrieve finds the gold
evidence pages of a benchmark question; `bookrag retrieve --json` and `bookrag ask` through the CLI."""

from __future__ import annotations

import json

import pytest

from bookrag_neo4j import BookRAG
from bookrag_neo4j.graph.client import GraphClient
from bookrag_neo4j.index.library import delete_document
from bookrag_neo4j.index.pipeline import file_key

from .pdfs import RAG_SURVEY, need
from .test_cli import run_cli

# mmlb-0082 of ../shared/benchmarks/mmlongbench/questions.jsonl
QUESTION = "Which method integrates knowledge into white-box models via directive fine-tuning?"
GOLD_PAGES = {9, 10}


@pytest.fixture(scope="module")
def survey(settings, neo4j_server) -> str:
    rag = BookRAG(settings, use_llm=False)
    report = rag.index(need(RAG_SURVEY))  # tree + embeddings + graph; a no-op when already indexed
    assert report.graph is not None and report.graph.entities > 1000
    yield RAG_SURVEY.name


def test_sdk_retrieve_finds_the_gold_pages(settings, survey) -> None:
    rag = BookRAG(settings, use_llm=False)
    evidence = rag.retrieve(QUESTION, doc=survey)
    assert evidence.plan.category == "single-hop" and 1 <= len(evidence.nodes) <= settings.skyline_max
    pages = set(evidence.pages[survey])
    assert pages & GOLD_PAGES, f"evidence pages {sorted(pages)} miss the gold pages {sorted(GOLD_PAGES)}"
    # every node cites its section, except front matter before the first section (the abstract, page 1)
    assert all(n.document == survey and (n.section_path or n.page_start == 1) for n in evidence.nodes)
    answer = rag.ask(QUESTION, doc=survey)
    assert answer.extractive and answer.citations and answer.citations[0].label().startswith(survey)
    tables = rag.ask("How many tables are in the paper?", doc=survey)
    assert tables.text.isdigit() and int(tables.text) == len(tables.citations) >= 2


def test_cli_retrieve_and_ask(settings, survey) -> None:
    proc = run_cli(settings, "retrieve", QUESTION, "--doc", survey, "--no-llm", "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    node = result["nodes"][0]
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


async def test_cleanup(graph: GraphClient, survey) -> None:
    await delete_document(graph, file_key(RAG_SURVEY))
