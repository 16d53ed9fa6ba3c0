"""Evaluation without a server: the pages a retrieved unit shows. (``bookrag eval`` on a real mini benchmark:
``tests/integration/test_eval.py``; the metrics: ``test_metrics.py``.)"""

from __future__ import annotations

from bookrag_neo4j.retrieval.evidence import EvidenceNode


def unit(**pages: object) -> EvidenceNode:
    return EvidenceNode(key="k", doc_key="d", document="a.pdf", kind="passage", text="t", **pages)


def test_a_unit_shows_its_page_range_or_its_merged_pages() -> None:
    assert unit(page_start=3, page_end=5).pages == [3, 4, 5]
    assert unit(page_start=4, page_end=0).pages == [4]  # a missing end: the first page alone
    assert unit(page_start=0, page_end=0).pages == []  # no page known: the unit uses none of a page budget
    assert unit(page_start=7, page_end=9, page_list=[7, 9]).pages == [7, 9]  # a cross-page merge across a gap
