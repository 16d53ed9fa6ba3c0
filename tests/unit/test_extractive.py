"""LLM-free answers: each passage quoted up to a sentence end (never cut mid-word), and a bare heading never a
cited item."""

from __future__ import annotations

from bookrag_neo4j.retrieval.answering import excerpt, extractive_answer, extractive_items
from bookrag_neo4j.retrieval.results import EvidenceNode

LONG = ("Data can be exported in many formats. " * 14 + "Exporting a DIF file and reading it back is described in "
        "the next section, with examples of every option.")


def node(key: str, text: str, kind: str = "text", section: str = "5 Export > 5.2 DIF files") -> EvidenceNode:
    return EvidenceNode(key=key, doc_key="d", document="R-data.pdf", kind=kind, text=text, section_path=section,
                        page_start=3, page_end=3)


def test_a_long_passage_is_cut_at_a_sentence_end() -> None:
    cut = excerpt(LONG)
    assert len(cut) <= 602 and cut.endswith("formats. …") and LONG.startswith(cut[:-2])
    assert excerpt("short and whole") == "short and whole"
    words = excerpt("word " * 200)  # no sentence end at all: a word boundary
    assert words.endswith("word …") and "wor …" not in words


def test_a_bare_heading_is_never_quoted_or_cited() -> None:
    heading, body = node("h", "5.2 DIF files"), node("b", LONG)
    section = node("s", "", kind="section")
    assert extractive_items([heading, section, body]) == [body]
    answer = extractive_answer([heading, section, body])
    assert answer.startswith("[1] Data can be exported") and "5.2 DIF files\n" not in answer and "[2]" not in answer
    assert extractive_items([heading]) == [heading]  # nothing better: the best there is
