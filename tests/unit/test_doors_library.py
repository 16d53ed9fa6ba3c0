"""What says which document a hit comes from, without Neo4j: the CLI's tables (a document column; on a terminal a
long section path cut at its end, piped every value whole), ``bookrag ask``'s sources under a heading per document,
a count's per-document parts, and MCP's grouping of citations and evidence by document. Over a real library:
tests/integration/test_doors_library.py."""

from __future__ import annotations

import re

import pytest

from bookrag_neo4j.api_models import AskResult, EvidenceItem, RetrieveResult, Source
from bookrag_neo4j.cli.ask import _show_answer, _show_evidence
from bookrag_neo4j.cli.common import render
from bookrag_neo4j.library.documents import Document
from bookrag_neo4j.retrieval.answering import extractive_answer
from bookrag_neo4j.retrieval.results import Answer, Evidence, EvidenceNode

REPORT = "annual-report-2017-consolidated-financial-statements-and-notes.pdf"
DEEP = "Item 8. Financial Statements and Supplementary Data > Consolidated Statements of Comprehensive Income"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def node(document: str, doc_key: str, rank: int, section: str = "1 Overview", page: int = 1) -> EvidenceNode:
    return EvidenceNode(key=f"{doc_key[:16]}-n{rank}", doc_key=doc_key, document=document, kind="text",
                        text=f"Net sales, part {rank}.", page_start=page, page_end=page, section_path=section,
                        rank=rank)


NODES = [node(REPORT, "a" * 32, 1, DEEP, 3), node("R-notes.pdf", "b" * 32, 2, "2 Net sales", 2),
         node(REPORT, "a" * 32, 3, "Item 7. Management Discussion and Analysis", 1)]


def _terminal(monkeypatch: pytest.MonkeyPatch, columns: int) -> None:
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    monkeypatch.setenv("COLUMNS", str(columns))


def test_a_terminal_table_cuts_a_long_section_path_at_its_end(monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    _terminal(monkeypatch, 140)
    _show_evidence(Evidence(question="q", nodes=NODES), as_json=False)
    table = ANSI.sub("", capsys.readouterr().out)
    assert "document" in table and "R-notes.pdf" in table
    first = next(line for line in table.splitlines() if line.startswith("│ 1 "))
    assert "│ Item 8. Financial Statements" in first and "Comprehensive Income" not in first, table
    assert re.search(r"Item 8\. Financial Statements[^│]*… │", first), first  # the start kept, the end cut
    render(None, ["name", "value"], [("x" * 200, "y")], as_json=False, widths={"name": 30})
    assert max(len(line) for line in ANSI.sub("", capsys.readouterr().out).splitlines()) <= 140


def test_a_piped_table_prints_every_value_whole(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TTY_COMPATIBLE", "0")
    monkeypatch.setenv("COLUMNS", "80")
    _show_evidence(Evidence(question="q", nodes=NODES), as_json=False)
    table = capsys.readouterr().out
    first = next(line for line in table.splitlines() if line.startswith("│ 1 "))
    assert REPORT in first and DEEP in first and "…" not in table
    _show_evidence(Evidence(question="q", nodes=[node("notes[draft].pdf", "c" * 32, 1, "[b] Intro")]), as_json=False)
    assert "│ notes[draft].pdf │" in capsys.readouterr().out  # a name is no markup: printed as it is
    render(None, ["key", "name", "status"], [("k1", REPORT, "complete")], as_json=False)
    listed = capsys.readouterr().out
    assert sum(REPORT in line for line in listed.splitlines()) == 1 and "…" not in listed


def test_a_count_names_each_documents_part() -> None:
    assert extractive_answer(NODES, count=7, parts=[("R-intro.pdf", 5), ("R-data.pdf", 2)]) == \
        "7 (R-intro.pdf 5, R-data.pdf 2)"
    assert extractive_answer(NODES, count=7, parts=[("R-intro.pdf", 7)]) == "7"  # one document: the number alone
    assert extractive_answer(NODES, count=0) == "0"
    from bookrag_neo4j.ops.evidence import per_document

    docs = [Document(key="a" * 32, name="a.pdf"), Document(key="b" * 32, name="b.pdf")]
    keys = [f"{'b' * 16}-x", f"{'a' * 16}-y", f"{'b' * 16}-z", f"{'b' * 16}-p3"]
    assert list(per_document(docs, keys).items()) == [("b" * 32, 3), ("a" * 32, 1)]  # most first
    assert per_document(docs, [*keys, "c" * 16 + "-q"]) == {}  # a key of no document in scope: no parts


def test_ask_lists_its_sources_under_each_document(capsys: pytest.CaptureFixture[str]) -> None:
    answer = Answer(question="q", text="Net sales.", citations=[n.citation for n in NODES])
    assert [(g.document, g.numbers) for g in answer.by_document()] == [(REPORT, [1, 3]), ("R-notes.pdf", [2])]
    _show_answer(answer)
    assert capsys.readouterr().out.split("Sources:\n")[1].splitlines() == [
        f"  {REPORT}", f"    [1] {DEEP}, p. 3", "    [3] Item 7. Management Discussion and Analysis, p. 1",
        "  R-notes.pdf", "    [2] 2 Net sales, p. 2"]
    _show_answer(Answer(question="q", text="Net sales.", citations=[NODES[1].citation]))
    assert "\n  [1] R-notes.pdf, 2 Net sales, p. 2\n" in capsys.readouterr().out  # one document: as before
    twins = [node("a.pdf", "d" * 32, 1), node("a.pdf", "e" * 32, 2)]  # one file name from two folders
    _show_answer(Answer(question="q", text="Net sales.", citations=[n.citation for n in twins]))
    assert capsys.readouterr().out.split("Sources:\n")[1].splitlines() == [
        f"  a.pdf ({'d' * 16})", "    [1] 1 Overview, p. 1", f"  a.pdf ({'e' * 16})", "    [2] 1 Overview, p. 1"]


def test_mcp_groups_citations_and_evidence_by_document() -> None:
    from bookrag_neo4j.api_models import document_parts

    items = [EvidenceItem.of(n) for n in NODES]
    citations = [Source.of(NODES[2].citation), Source.of(NODES[1].citation)]
    parts = document_parts(items, citations)
    assert [(p.document, [c.node_key for c in p.citations], p.evidence) for p in parts] == [
        (REPORT, [NODES[2].key], [1, 3]), ("R-notes.pdf", [NODES[1].key], [2])]
    assert [(p.document, p.citations, p.evidence) for p in document_parts(items[1:])] == [
        ("R-notes.pdf", [], [2]), (REPORT, [], [3])]
    for model in (AskResult, RetrieveResult):
        schema = model.model_json_schema()
        assert schema["properties"]["documents"]["description"], model
        assert {"document", "doc_key", "citations", "evidence"} <= set(schema["$defs"]["DocumentPart"]["properties"])
