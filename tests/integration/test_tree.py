"""Section detection on R's manual: the tree from its outline, and the heuristics recovering that outline.
(Tree assembly and LLM filtering on a synthetic document: ``tests/unit/test_tree.py``.)"""

from __future__ import annotations

import dataclasses

import pytest

from bookrag_neo4j.eval.bench_headings import score
from bookrag_neo4j.parsing.blocks import ParsedDocument
from bookrag_neo4j.parsing.pymupdf_parser import parse_pdf
from bookrag_neo4j.tree.build import build_tree
from bookrag_neo4j.tree.headings import from_outline, from_typography

from ..helpers.pdfs import R_INTRO, need


@pytest.fixture(scope="module")
def r_intro() -> ParsedDocument:
    return parse_pdf(need(R_INTRO), tables=False)


def test_outline_tree_matches_the_bookmarks(r_intro: ParsedDocument) -> None:
    tree = build_tree(r_intro, from_outline(r_intro), "outline")
    sections = tree.sections()
    assert [(s.title, s.level, s.page_start) for s in sections][:3] == [
        (e.title, e.level, e.page) for e in r_intro.outline[:3]
    ]
    assert len(sections) == len(r_intro.outline)
    for node in tree.nodes():  # sections nest by level; children lie inside their parent's page span
        for child in node.children:
            if child.kind == "section" and node.kind == "section":
                assert child.level > node.level
            assert node.page_start <= child.page_start <= child.page_end <= node.page_end
    orders = [n.order for n in tree.nodes()]
    assert orders == list(range(len(orders)))
    assert len({n.key for n in tree.nodes()}) == len(orders)  # content-hash keys are unique
    again = build_tree(r_intro, from_outline(r_intro), "outline")
    assert [n.key for n in again.nodes()] == [n.key for n in tree.nodes()]  # and stable


def test_heuristics_recover_the_manual_outline(r_intro: ParsedDocument) -> None:
    hidden = dataclasses.replace(r_intro, outline=[])
    result = score(from_typography(hidden), r_intro.outline)
    assert result["f1"] >= 0.9 and result["level_accuracy"] >= 0.9, result
