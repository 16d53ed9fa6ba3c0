"""A page too dense for the region model: past ``MAX_REGION_FRAGMENTS`` text fragments the parser skips it there
(tables by their ruling lines only), says so once, and keeps every fragment's text. (The seconds a 10,000-fragment
page takes are a benchmark's, not a test's: the bound here only catches the quadratic cost coming back.)"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path

import pymupdf
import pytest

from bookrag_neo4j.parsing import pymupdf_parser
from bookrag_neo4j.parsing.limits import MAX_REGION_FRAGMENTS
from bookrag_neo4j.parsing.pymupdf_parser import parse_pdf
from bookrag_neo4j.parsing.regions import classify_pages

from ..helpers.pdfs import dense_page_pdf


@pytest.fixture
def layout_runs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The pages (1-based) the region model runs on, in this process."""
    pages: list[int] = []
    original = pymupdf.Page.get_layout

    def counted(self: pymupdf.Page, *args: object, **kwargs: object) -> object:
        pages.append(self.number + 1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(pymupdf.Page, "get_layout", counted)
    yield pages


def test_a_page_of_10000_fragments_skips_the_layout_model_and_says_so_once(
        tmp_path: Path, layout_runs: list[int], caplog: pytest.LogCaptureFixture) -> None:
    pdf = dense_page_pdf(tmp_path / "dense.pdf", 10_000)
    began = time.perf_counter()
    with caplog.at_level(logging.WARNING, logger="bookrag_neo4j.parsing"):
        parsed = parse_pdf(pdf, workers=1)
    seconds = time.perf_counter() - began
    expected = (f"page 1 has more than {MAX_REGION_FRAGMENTS:,} text fragments: the region model is not run there "
                "(tables found by their ruling lines only)")
    assert parsed.warnings == [expected] and parsed.region_skipped == [1]
    ours = [r.getMessage() for r in caplog.records if r.name.startswith("bookrag_neo4j.parsing")]
    assert ours == [f"dense.pdf: {expected}"]  # (a local HTTP server of another test may log on its own thread)
    assert layout_runs == []
    assert sum(b.text.count("w") for b in parsed.blocks) == 10_000  # nothing lost
    assert seconds < 60.0, seconds  # about 5 s on a 2-core machine; 108 s with the region model and quadratic order


def test_only_the_pages_over_the_threshold_skip_the_layout_model(
        tmp_path: Path, layout_runs: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pymupdf_parser, "MAX_REGION_FRAGMENTS", 300)
    pdf = dense_page_pdf(tmp_path / "three.pdf", 300, 301, 250, 400)  # each a table candidate (rows of cells)
    parsed = parse_pdf(pdf, workers=1)
    assert parsed.region_skipped == [2, 4] and layout_runs == [1, 3]
    assert parsed.warnings == ["2 pages have more than 300 text fragments (pages 2, 4): the region model is not "
                               "run there (tables found by their ruling lines only)"]
    layout_runs.clear()
    assert classify_pages(parsed, [1, 2, 3, 4], workers=1) == 2  # the heading detectors skip them too
    assert layout_runs == [1, 3]
