"""Over a library of several documents, every door says which document a hit comes from: ``bookrag retrieve``'s
table has a document column and cuts a long section path at its end, ``bookrag ask`` lists its sources under a
heading per document (``--json``: ``by_document``), an LLM-free count names each document's part, MCP's ``ask``
and ``retrieve`` group their citations and evidence by document, and a table piped to another program prints its
values whole. Two small PDFs with outlines, indexed once for the module (tree and embeddings, LLM-free)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from mcp import Client

from bookrag_neo4j.config import Settings
from bookrag_neo4j.llm import Models
from bookrag_neo4j.mcp_server import build_server
from bookrag_neo4j.sdk import BookRAG

from ..helpers.cli import run_cli
from ..helpers.pdfs import outlined_pdf
from ..helpers.timeouts import LONG_TEST

pytestmark = pytest.mark.timeout(LONG_TEST)

REPORT = "annual-report-2017-consolidated-financial-statements-and-notes.pdf"  # longer than a narrow table's column
NOTES = "R-notes.pdf"
DEEP = "Item 8. Financial Statements and Supplementary Data > Consolidated Statements of Comprehensive Income"
SALES = "Net sales were 177,866 million dollars in 2017, up from 135,987 million dollars in 2016."
COUNT = "How many sections are there?"  # global, answered by the count of the top-level sections: 3 + 2


@pytest.fixture(scope="module")
async def library(settings: Settings, offline_models: Models, schema,
                  tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[BookRAG]:
    folder = tmp_path_factory.mktemp("doors")
    report = outlined_pdf(folder / REPORT, [
        (1, "Item 7. Management Discussion and Analysis", ["Net sales grew in 2017, driven by the online stores.",
                                                           "Operating income fell as shipping costs rose."]),
        (1, "Item 8. Financial Statements and Supplementary Data", ["The statements follow on the next pages."]),
        (2, "Consolidated Statements of Comprehensive Income", [SALES, "Net income was 3,033 million dollars."]),
    ])
    notes = outlined_pdf(folder / NOTES, [
        (1, "1 Introduction", ["These notes cover the R project stores and their customers."]),
        (1, "2 Net sales", [SALES, "The online stores sold most of the books."]),
        (1, "3 Outlook", ["The stores expect more customers in 2018."]),
    ])
    rag = BookRAG(settings.replace(llm_provider="none"), models=offline_models, use_llm=False)
    keys = [(await rag.aindex(pdf, knowledge_graph=False, layout=False)).doc_key for pdf in (report, notes)]
    yield rag
    for key in keys:
        await rag.adelete(key)
    await rag.aclose()


def _cli(settings: Settings, *args: str) -> str:
    """``bookrag *args`` piped, as into ``grep`` (80 columns, were it a terminal): its stdout."""
    proc = run_cli(settings, *args, COLUMNS="80")
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_retrieve_names_the_document_and_keeps_the_start_of_a_section_path(settings: Settings,
                                                                            library: BookRAG) -> None:
    table = _cli(settings, "retrieve", "What were the net sales in the consolidated statements of comprehensive "
                 "income?", "--doc", REPORT, "--doc", NOTES, "--no-llm")
    assert "document" in table.splitlines()[1]  # the header
    rows = [line for line in table.splitlines() if SALES[:20] in line]
    assert any(REPORT in line and DEEP in line for line in rows), table  # whole: piped
    assert any(NOTES in line and "2 Net sales" in line for line in rows), table


def _headed(out: str) -> dict[str, list[str]]:
    """``bookrag ask``'s sources: the lines under each document heading."""
    groups: dict[str, list[str]] = {}
    for line in out.split("Sources:\n", 1)[1].splitlines():
        if line.startswith("    ["):
            groups[list(groups)[-1]].append(line.strip())
        else:
            groups[line.strip()] = []
    return groups


def test_ask_lists_its_sources_under_each_document(settings: Settings, library: BookRAG) -> None:
    out = _cli(settings, "ask", COUNT, "--doc", REPORT, "--doc", NOTES, "--no-llm")
    groups = _headed(out)
    assert set(groups) == {NOTES, REPORT}, out
    assert [line.split("] ", 1)[1] for line in groups[NOTES]] == ["1 Introduction, p. 1", "2 Net sales, p. 2",
                                                                   "3 Outlook, p. 3"], out
    assert [line.split("] ", 1)[1][:7] for line in groups[REPORT]] == ["Item 7.", "Item 8."], out
    numbers = sorted(int(line[1:line.index("]")]) for lines in groups.values() for line in lines)
    assert numbers == [1, 2, 3, 4, 5]  # numbered in the answer's order, across the headings
    answer = json.loads(_cli(settings, "ask", COUNT, "--doc", REPORT, "--doc", NOTES, "--no-llm", "--json"))
    assert answer["text"] and len(answer["citations"]) == 5  # the fields of before, unchanged
    assert {g["document"]: len(g["numbers"]) for g in answer["by_document"]} == {NOTES: 3, REPORT: 2}
    for group in answer["by_document"]:
        assert {answer["citations"][i - 1]["document"] for i in group["numbers"]} == {group["document"]}
    one = _cli(settings, "ask", "What were the net sales?", "--doc", NOTES, "--no-llm")
    assert f"  [1] {NOTES}, " in one  # one document: no heading, the label whole


async def test_a_count_over_several_documents_names_each_part(library: BookRAG) -> None:
    answer = await library.aask(COUNT, [REPORT, NOTES])
    assert answer.text == f"5 ({NOTES} 3, {REPORT} 2)" and answer.count == 5 and answer.extractive
    assert (await library.aask(COUNT, NOTES)).text == "3"  # one document: the number alone


def test_retrieve_names_each_part_of_a_count(settings: Settings, library: BookRAG) -> None:
    proc = run_cli(settings, "retrieve", COUNT, "--doc", REPORT, "--doc", NOTES, "--no-llm", COLUMNS="200")
    assert f"count: 5 ({NOTES} 3, {REPORT} 2)" in proc.stdout + proc.stderr, proc.stderr
    found = json.loads(_cli(settings, "retrieve", COUNT, "--doc", REPORT, "--doc", NOTES, "--no-llm", "--json"))
    assert sorted(found["count_by_document"].values()) == [2, 3]


def test_docs_list_piped_prints_whole_names(settings: Settings, library: BookRAG) -> None:
    listed = _cli(settings, "docs", "list")
    assert sum(REPORT in line for line in listed.splitlines()) == 1, listed
    assert "…" not in listed


async def test_mcp_ask_and_retrieve_group_by_document(library: BookRAG) -> None:
    async with Client(build_server(library)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for name in ("ask", "retrieve"):
            assert "documents" in tools[name].output_schema["properties"], name
            assert tools[name].input_schema["additionalProperties"] is False
        asked = await client.call_tool("ask", {"question": COUNT, "docs": [REPORT, NOTES]})
        assert not asked.is_error, asked.content
        result = asked.structured_content
        assert result["answer"] == f"5 ({NOTES} 3, {REPORT} 2)" and len(result["citations"]) == 5
        parts = {p["document"]: p for p in result["documents"]}
        notes, report = parts[NOTES], parts[REPORT]
        assert [c["section_path"] for c in notes["citations"]] == ["1 Introduction", "2 Net sales", "3 Outlook"]
        assert [c["document"] for c in report["citations"]] == [REPORT, REPORT]
        ranks = {e["rank"]: e["citation"]["document"] for e in result["evidence"]}
        assert all(ranks[r] == part["document"] for part in result["documents"] for r in part["evidence"])
        found = await client.call_tool("retrieve", {"question": "What were the net sales?", "docs": [REPORT, NOTES]})
        assert not found.is_error, found.content
        evidence = found.structured_content
        assert {p["document"] for p in evidence["documents"]} == {REPORT, NOTES}
        assert sorted(r for p in evidence["documents"] for r in p["evidence"]) == [e["rank"] for e in
                                                                                    evidence["evidence"]]
        assert all(p["citations"] == [] for p in evidence["documents"])
