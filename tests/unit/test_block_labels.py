"""A document's blocks in memory (retrieval/document_blocks.py): labels, the short line above a block that Text_Reasoning
reads with it; BM25 from the postings, equal to BM25 over the texts; candidates with their similarity."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from bookrag_neo4j.retrieval.document_blocks import BlockRow, is_label, labels, read_blocks
from bookrag_neo4j.retrieval.reasoners import node_text
from bookrag_neo4j.text.lexical import bm25_scores, tokens


@pytest.mark.parametrize("line", ["Net sales", "SUMMARY OF RAG METHODS", "NOTE 10. Income Taxes",
                                  "Fiscal 2018 Highlights", "How do I reset the headset?", "Sales (millions)",
                                  "3M Company and Subsidiaries Consolidated Balance Sheet At December 31"])
def test_short_naming_lines_are_labels(line: str) -> None:
    assert is_label(line)


@pytest.mark.parametrize("line", [
    "Net sales rose in every segment.",           # a sentence
    "Our contributions are as follows:",          # a lead-in
    "questions for machine comprehension of text",  # a sentence's continuation
    "1,210 15.1 272 Corporate and Unallocated",   # a table row's figures
    "47.2 % Percent of sales",
    "$ 6,235 Sales change analysis",
    "Revenue 2018 2017",                           # a table's column heads (two numbers)
    "See https://example.com/docs",               # an address
    "L",                                           # a drop capital
    "A very long line that goes on and on well past the twelve words a label may have at most",
])
def test_sentences_rows_and_fragments_are_not(line: str) -> None:
    assert not is_label(line)


def _row(order: int, text: str, *, section: str = "Results", kind: str = "text") -> BlockRow:
    return BlockRow(key=f"k{order}", doc_key="d", order=order, kind=kind, section_path=section, title="", text=text,
                    page_start=order, page_end=order)


def test_a_label_holds_until_the_next_label_or_the_end_of_its_section() -> None:
    rows = [_row(1, "Opening paragraph of the section, before any label."),
            _row(2, "Net sales"), _row(3, "Net sales rose 5 % to $18.3 billion."), _row(4, "| 2020 | 2021 |", kind="table"),
            _row(5, "Operating expenses"), _row(6, "Expenses were flat."),
            _row(7, "Another section begins here with a sentence.", section="Risks")]
    found = labels(list(reversed(rows)))  # in reading order whatever the rows' order
    assert found == {"k3": "Net sales", "k4": "Net sales", "k5": "Net sales", "k6": "Operating expenses"}


def test_document_statistics_count_the_labels_as_the_reranker_reads_them() -> None:
    blocks = read_blocks([_row(1, "Segment Results"), _row(2, "Revenue grew."), _row(3, "Costs fell.")])
    assert {k: n.label for k, n in blocks.nodes.items()} == {"k1": "", "k2": "Segment Results", "k3": "Segment Results"}
    # "segment": the label itself and the two blocks under it; "results" as well, plus the section path
    assert blocks.stats.document_frequency["segment"] == 3
    assert blocks.stats.average_length == sum(len(tokens(t)) for t in [
        "Results Segment Results", "Results Segment Results Revenue grew.", "Results Segment Results Costs fell."]) / 3


def test_bm25_from_the_postings_equals_bm25_over_the_texts() -> None:
    blocks = read_blocks([_row(1, "Net sales"), _row(2, "Net sales rose in every segment, net of returns."),
                          _row(3, "Operating income"), _row(4, "Income fell; sales rose.", section="Outlook"),
                          _row(5, "Dividends were paid.", section="Outlook")])
    question = "How did net sales and operating income change? sales"  # a term twice counts twice
    keys = ["k5", "k2", "k4"]
    expected = bm25_scores(question, [node_text(blocks.nodes[k]) for k in keys], stats=blocks.stats)
    assert blocks.bm25(question, keys) == expected and expected[1] > 0  # bit for bit
    assert blocks.bm25("nothing matches", keys) == [0.0, 0.0, 0.0]
    # the last question's scores are kept (Fetch and Text_Reasoning ask for the same); another replaces them
    assert blocks.scores(question) is blocks.scores(question)
    assert blocks.bm25(question, keys) == expected and len(blocks.last_scores) == 1


def test_candidates_carry_their_label_pages_and_similarity() -> None:
    blocks = read_blocks([_row(1, "Net sales"), _row(2, "Rose 5 %."), _row(3, "A block never embedded.")])
    similarities = np.array([0.8, 1.0, np.nan])  # in row order, as block_similarities gives them
    first, second, third = blocks.candidates(["k1", "k2", "k3", "elsewhere"], similarities)
    assert second.label == "Net sales" and second.page_start == second.page_end == 2 and second.doc_key == "d"
    assert first.similarity == 0.8 and second.similarity == 1.0 and third.similarity is None
    # a question of another dimension has no similarities: no candidate has one
    assert [c.similarity for c in blocks.candidates(["k1", "k2"], np.zeros(0))] == [None, None]


def test_first_stage_is_the_top_by_bm25_then_the_nearest() -> None:
    blocks = read_blocks([_row(1, "Dividends were paid."), _row(2, "Net sales rose."),
                          _row(3, "Net sales by region, net of returns."), _row(4, "Costs fell.")])
    # BM25's top 2 of the blocks holding a term (k2, shorter, before k3), then the 2 nearest (k4 has no embedding)
    assert blocks.first_stage("net sales", np.array([1.0, 0.5, 0.8, np.nan]), 2) == ["k2", "k3", "k1", "k3"]
    assert blocks.first_stage("nothing matches", np.array([0.5, 1.0, 0.9, np.nan]), 1) == ["k2"]
    assert blocks.nearest(np.array([0.1, 0.2, 0.3, np.nan]), 9) == [("k3", 0.3), ("k2", 0.2), ("k1", 0.1)]
    assert blocks.nearest(np.zeros(0), 9) == []


def test_filters_read_kinds_pages_and_reading_order_from_the_copy_as_cypher_would() -> None:
    rows = [replace(_row(3, "Table 1"), kind="table", page_start=4, page_end=5),
            replace(_row(1, "Intro"), page_start=1, page_end=1),
            replace(_row(2, "A scanned note"), page_start=None, page_end=None),  # no pages: out of every bound
            replace(_row(4, "Figure 2"), kind="image", page_start=6, page_end=6)]
    blocks = read_blocks(rows)
    assert blocks.filtered() == ["k1", "k2", "k3", "k4"]  # reading order, not row order
    assert blocks.filtered(kinds=["table", "image"]) == ["k3", "k4"]
    assert blocks.filtered(kinds=[]) == blocks.filtered()  # no kinds: every kind
    assert blocks.filtered(page_from=5) == ["k3", "k4"]
    assert blocks.filtered(page_to=4) == ["k1", "k3"]
    assert blocks.filtered(page_from=1, page_to=6, within={"k2", "k4", "a section"}) == ["k4"]
