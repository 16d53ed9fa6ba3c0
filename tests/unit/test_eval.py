"""Evaluation without a server: the pages a retrieved unit shows. (``bookrag eval`` on a real mini benchmark:
``tests/integration/test_eval.py``; the metrics: ``test_metrics.py``.)"""

from __future__ import annotations

from bookrag_neo4j.retrieval.results import EvidenceNode


def unit(**pages: object) -> EvidenceNode:
    return EvidenceNode(key="k", doc_key="d", document="a.pdf", kind="passage", text="t", **pages)


def test_a_unit_shows_its_page_range_or_its_merged_pages() -> None:
    assert unit(page_start=3, page_end=5).pages == [3, 4, 5]
    assert unit(page_start=4, page_end=0).pages == [4]  # a missing end: the first page alone
    assert unit(page_start=0, page_end=0).pages == []  # no page known: the unit uses none of a page budget
    assert unit(page_start=7, page_end=9, page_list=[7, 9]).pages == [7, 9]  # a cross-page merge across a gap


def test_dev_documents_split_into_two_halves_by_their_file_name() -> None:
    from bookrag_neo4j.eval.benchmark import HALVES, half

    names = [f"report-{i}.pdf" for i in range(200)]
    halves = [half(name) for name in names]
    assert set(halves) == set(HALVES) and 70 < halves.count("design") < 130  # both halves, neither tiny
    assert [half(name) for name in names] == halves  # the same every time
    assert half("3M_2018_10K.pdf") == "check" and half("PEPSICO_2021_10K.pdf") == half("PEPSICO_2021_10K.pdf")
