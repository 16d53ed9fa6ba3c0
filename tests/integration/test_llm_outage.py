"""An LLM endpoint that does not answer costs seconds and says so: indexing falls back at once and records the
stages that fell back (the section source, the graph's nodes without LLM entities, retried by the next build),
``bookrag ask`` answers without it and names the URL, ``bookrag doctor`` exits 1."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import pymupdf
import pytest

from bookrag_neo4j.config import Settings
from bookrag_neo4j.llm import Models
from bookrag_neo4j.llm.openai_chat import OpenAIChatModel
from bookrag_neo4j.sdk import BookRAG

from ..helpers.cli import run_cli
from ..helpers.timeouts import LONG_TEST

pytestmark = pytest.mark.timeout(LONG_TEST)

DEAD = "http://127.0.0.1:9/v1"  # the discard port: nothing listens, the connection is refused
NAME = "outage-notes.pdf"


def unoutlined_pdf(path: Path) -> Path:
    """Two pages with large, bold-looking titles and no outline: their sections are the LLM's to choose."""
    pdf = pymupdf.open()
    for title, lines in (("1 Stores", ["The stores sold 4,200 books in 2017.", "Most customers came online."]),
                         ("2 Outlook", ["The stores expect more customers in 2018.", "Prices stay the same."])):
        page = pdf.new_page()
        page.insert_text((72, 72), title, fontsize=18)
        for i, line in enumerate(lines):
            page.insert_text((72, 110 + 16 * i), line, fontsize=10)
    pdf.save(path)
    return path


@pytest.fixture(scope="module")
async def dead_llm_rag(settings: Settings, offline_models: Models, schema,
                       tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[BookRAG]:
    dead = OpenAIChatModel("gpt-test", base_url=DEAD, api_key="k")
    models = Models(llm=dead, vlm=None, embedder=offline_models.embedder, reranker=offline_models.reranker)
    rag = BookRAG(settings.replace(llm_provider="openai", openai_base_url=DEAD), models=models)
    yield rag
    for doc in await rag.adocuments():
        if doc.name == NAME:
            await rag.adelete(doc.key)
    await rag.aclose()


async def test_index_records_the_stages_that_fell_back(dead_llm_rag: BookRAG, settings: Settings,
                                                       tmp_path_factory: pytest.TempPathFactory) -> None:
    pdf = unoutlined_pdf(tmp_path_factory.mktemp("outage") / NAME)
    began = time.perf_counter()
    report = await dead_llm_rag.aindex(pdf, knowledge_graph=True, layout=False)
    seconds = time.perf_counter() - began
    assert report.heading_source.endswith(": the LLM did not answer"), report.heading_source  # not "llm"
    assert report.graph is not None and report.graph.llm_failed > 0
    assert any("entity extraction failed for" in w and DEAD in w for w in report.graph.warnings)
    (doc,) = [d for d in await dead_llm_rag.adocuments() if d.name == NAME]
    assert doc.graph_counts.llm_failed == report.graph.llm_failed
    again = await dead_llm_rag.aindex(pdf, knowledge_graph=True, layout=False)  # the graph is built again, not "unchanged"
    assert again.graph is not None and again.graph.status == "built"
    listed = run_cli(settings, "docs", "list")
    row = next(line for line in listed.stdout.splitlines() if NAME in line)
    assert "the LLM did not answer" in row and "nodes without LLM entities" in row, listed.stdout
    print(f"indexing with a dead LLM: {seconds:.1f} s")

    asked = time.perf_counter()
    proc = run_cli(settings, "ask", "How many books did the stores sell?", "--doc", NAME,
                   BOOKRAG_LLM_PROVIDER="openai", OPENAI_BASE_URL=DEAD)
    print(f"`bookrag ask` with a dead LLM: {time.perf_counter() - asked:.1f} s")
    assert proc.returncode == 0, proc.stderr
    assert "4,200" in proc.stdout  # answered LLM-free from the evidence
    assert f"at {DEAD} is not reachable" in proc.stderr and "failed after" not in proc.stderr, proc.stderr
