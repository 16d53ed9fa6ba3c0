"""Numbered references: what a question or a text names ("figure 3", "Table II", "figures 1-4"), the names blocks
carry, the caption pattern SuperRAG's template matches (``bookrag_neo4j/text/references.py``), and the blocks a
question names (``DocumentBlocks.named``)."""

from __future__ import annotations

import re

import pytest

from bookrag_neo4j.retrieval.document_blocks import BlockRow, PageLabelRow, read_blocks
from bookrag_neo4j.text.references import Page, Reference, caption_pattern, mentions, pages, reference_of


@pytest.mark.parametrize(("question", "named"), [
    ("In figure 3, how many distinct icons are used?", {("figure", "3")}),
    ("According to table II, which datasets have three methods?", {("table", "ii")}),
    ("What does Fig. 5b plot?", {("figure", "5b")}),
    ("What do figures 2 and 3 show?", {("figure", "2"), ("figure", "3")}),
    ("Among figure 1-4, how many show a gash?", {("figure", str(n)) for n in range(1, 5)}),
    ("What does Exhibit 4.1 say?", {("exhibit", "4.1")}),
    ("Which chart 2 bar is longest?", {("figure", "2")}),
    ("What do figures 1-40 plot?", {("figure", "1"), ("figure", "40")}),  # a range over 20 names its ends
    ("How many tables are in the report?", set()),  # no number
    ("Is table i a typo?", set()),  # a lower-case "i" is a word, not a Roman numeral
    ("What is in the subtable 3?", set()),  # not the word "table"
])
def test_the_references_a_question_names(question: str, named: set[tuple[str, str]]) -> None:
    assert set(mentions(question)) == named


def test_mentions_in_running_text_come_once_and_in_order() -> None:
    assert mentions("as Table 3 and Fig. 2 show; see also table 3, Tables 4-5 and Eq. 7") == [
        ("table", "3"), ("figure", "2"), ("table", "4"), ("table", "5"), ("equation", "7")]
    assert mentions("") == [] and mentions("Results in Table") == []


@pytest.mark.parametrize(("ref", "caption", "matches"), [
    (Reference("table", "3"), "Table 3: Net sales by segment", True),
    (Reference("table", "3"), "TAB. 3 Sales", True),
    (Reference("table", "3"), "Table 3.2 Sales", False),  # another table
    (Reference("table", "3"), "Table 31", False),
    (Reference("table", "3"), "Figure 3 Sales", False),  # another family
    (Reference("figure", "2"), "Fig. 2.\nThe pipeline", True),
    (Reference("figure", "2"), "Chart 2 shows", True),
    (Reference("table", "ii"), "TABLE II\nTask | Dataset", True),
    (Reference("exhibit", "4.1"), "Exhibit 4.1—Credit agreement", True),
    (Reference("exhibit", "4.1"), "Exhibit 411", False),
])
def test_the_caption_pattern_reads_names_as_reference_of_does(ref: Reference, caption: str, matches: bool) -> None:
    assert bool(re.fullmatch(caption_pattern(ref), caption)) is matches
    assert (reference_of(caption) == ref) is matches


@pytest.mark.parametrize(("text", "ref"), [
    ("Fig. 3. Comparison between the three paradigms of RAG.", ("figure", "3")),
    ("TABLE II\nTask | Sub Task | Dataset", ("table", "ii")),
    ("Figure 12: Revenue by segment", ("figure", "12")),
    ("Table 4.1 Net sales", ("table", "4.1")),
    ("Exhibit 10.2—Credit agreement", ("exhibit", "10.2")),
    ("Figure shows the trend", None),
    ("Tables 3 and 4 show", ("table", "3")),
    ("The figure 3 below", None),  # only a name the text starts with
])
def test_the_name_a_block_starts_with(text: str, ref: tuple[str, str] | None) -> None:
    assert reference_of(text) == ref


def test_a_document_finds_the_blocks_a_question_names() -> None:
    def row(order: int, text: str, kind: str, title: str = "") -> BlockRow:
        return BlockRow(key=f"k{order}", doc_key="d", order=order, kind=kind, section_path="Results", title=title,
                        text=text, page_start=order, page_end=order)

    blocks = read_blocks([row(1, "Figure 3 compares the paradigms.", "text"), row(2, "", "image", "Fig. 3. Paradigms"),
                          row(3, "TABLE II\nTask | Dataset", "table"), row(4, "Revenue grew in 2021.", "text")],
                         printed=[PageLabelRow("1", 3), PageLabelRow("2", 4)])
    assert blocks.named("How many icons does figure 3 use?") == ["k1", "k2"]  # in reading order
    assert blocks.named("According to Table II, which task?") == ["k3"]
    assert blocks.named("What does figure 4 show?") == [] and blocks.named("How did revenue grow?") == []
    # a page: the one printed "1" (the third), not the first; a page printed nowhere is the physical one
    assert blocks.named("What is on page 1?") == ["k3"] and blocks.named("What is on page 4?") == ["k4"]
    assert blocks.named("In figure 3 on page 2, what grew?") == ["k1", "k2", "k4"]  # names first, then pages
    assert blocks.named("What is on page 9?") == [] and blocks.named("How many pages are there?") == []
    assert blocks.named("Who is on the cover?") == ["k1"] and blocks.named("What is on the last page?") == ["k4"]


def test_a_document_finds_the_tables_titled_as_the_statement_a_question_names() -> None:
    def row(order: int, text: str, kind: str, section: str = "Item 8") -> BlockRow:
        return BlockRow(key=f"k{order}", doc_key="d", order=order, kind=kind, section_path=section, title="",
                        text=text, page_start=order, page_end=order)

    blocks = read_blocks([row(1, "CONSOLIDATED BALANCE SHEETS (In millions)", "text"),
                          row(2, "| Total assets | 1,000 |", "table"),
                          row(3, "| Net income | 50 |", "table", "Item 8 > Consolidated Statements of Operations"),
                          row(4, "Our balance sheet is strong.", "text", "Item 7")])
    question = "Based on the balance sheet, what were total assets?"
    assert blocks.named(question, ["balance sheet"]) == ["k2"]  # the table its label names; not the text
    assert blocks.named(question, ["statements of operations"]) == ["k3"]  # its own section's title
    assert blocks.named(question) == []
    # by the name that found them: the balance sheet's tables, then the statement of operations'
    assert blocks.named_groups(question, ["balance sheet", "statements of operations", "cash flows"]) == [["k2"], ["k3"]]


def test_a_letter_spaced_title_names_its_table() -> None:
    """Text extraction splits a letter-spaced heading inside words ("Balance Shee t"): titles compare without
    whitespace."""
    blocks = read_blocks([
        BlockRow(key="k1", doc_key="d", order=1, kind="text", section_path="Item 8", title="",
                 text="3M Company and Subsidiaries Consolidated Balance Shee t At December 31", page_start=58,
                 page_end=58),
        BlockRow(key="k2", doc_key="d", order=2, kind="table", section_path="Item 8", title="",
                 text="| Total assets | 1,000 |", page_start=58, page_end=58)])
    assert blocks.named("What were total assets, based on the balance sheet?", ["balance sheet"]) == ["k2"]


@pytest.mark.parametrize(("question", "named"), [
    ("How many cats are in the images on page 1?", ["1"]),
    ("How many figures are provided in Pages 51-53?", ["51", "52", "53"]),
    ("See p. 12 and pp. 3-4.", ["12", "3", "4"]),
    ("What is on page ix?", ["ix"]),  # a Roman numeral after "page", in either case
    ("What is the number of page views in 2020?", []),
    ("Which page, in short?", []),
    ("How many people are in the images on the cover?", [1]),  # a place: the first page of the PDF
    ("What is on the back cover and on page 3?", [-1, "3"]),
    ("Which topics does the report cover?", []),  # the verb
])
def test_the_pages_a_question_names(question: str, named: list[str | int]) -> None:
    assert pages(question) == [Page(place=n) if isinstance(n, int) else Page(label=n) for n in named]
