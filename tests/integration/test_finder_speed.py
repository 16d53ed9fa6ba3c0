"""The table finder's speed-ups (:mod:`bookrag_neo4j.parsing.finder_speed`) give exactly what PyMuPDF's own code
gives: every field of every character, every ``chars_in_rect`` answer, every table; PyMuPDF's code is back after,
and runs instead where its source is not the version reproduced."""

from __future__ import annotations

import random
from pathlib import Path

import pymupdf
import pymupdf.table as pt
import pytest

from bookrag_neo4j.parsing import finder_speed
from bookrag_neo4j.parsing.finder_speed import boxes_only, chars_in_rect, fast_finder, make_chars
from bookrag_neo4j.parsing.pymupdf_parser import table_candidate_pages

from ..helpers.pdfs import ACL_PAPER, TEN_K, need
from ..helpers.timeouts import LONG_TEST

pytestmark = pytest.mark.timeout(LONG_TEST)
PYMUPDF_MAKE_CHARS, PYMUPDF_CHARS_IN_RECT = pt.make_chars, pt.chars_in_rect


def _chars(page: pymupdf.Page, make) -> list[dict]:
    pt._CHARS_VAR.set([])
    old = pymupdf.TOOLS.set_small_glyph_heights()
    pymupdf.TOOLS.set_small_glyph_heights(True)  # as find_tables sets it
    try:
        make(page)
    finally:
        pymupdf.TOOLS.set_small_glyph_heights(old)
    return list(pt.CHARS)


@pytest.fixture(scope="module")
def odd_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Text PyMuPDF's code handles in its less common branches: vertical and slanted lines, a page whose media
    box does not start at 0, a rotated page, colours, bold."""
    path = tmp_path_factory.mktemp("odd") / "odd.pdf"
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Plain 12.5 text", fontsize=12.5, color=(0.2, 0.4, 0.6))
    page.insert_text((72, 120), "Bold heading", fontname="hebo", fontsize=15)
    page.insert_text((300, 400), "Vertical text", rotate=90)
    page.insert_text((200, 600), "Upside down", rotate=180)
    page.insert_text((100, 700), "Slanted", morph=(pymupdf.Point(100, 700), pymupdf.Matrix(30)))
    shifted = doc.new_page()
    shifted.insert_text((50, 50), "On a shifted media box")
    shifted.set_mediabox(pymupdf.Rect(10, 20, 600, 800))
    rotated = doc.new_page()
    rotated.insert_text((60, 80), "On a rotated page")
    rotated.set_rotation(90)
    doc.save(path)
    return path


def test_characters_are_the_same_as_pymupdfs(odd_pdf: Path) -> None:
    pages = [(odd_pdf, n) for n in range(1, 4)]
    for path in (ACL_PAPER, TEN_K):
        pages += [(need(path), n) for n in table_candidate_pages(path)[:6]]
    compared = 0
    for path, n in pages:
        with pymupdf.open(path) as doc:
            theirs, ours = _chars(doc[n - 1], PYMUPDF_MAKE_CHARS), _chars(doc[n - 1], make_chars)
        assert ours == theirs, f"{path.name} page {n}"
        compared += len(theirs)
        for key in ("x0", "y0", "y1", "matrix", "doctop"):  # the same types too, not only equal values
            assert [type(c[key]) for c in ours] == [type(c[key]) for c in theirs]
    assert compared > 10_000


def test_chars_in_rect_answers_as_pymupdfs() -> None:
    path = need(TEN_K)
    rng = random.Random(7)
    with pymupdf.open(path) as doc:
        page = doc[table_candidate_pages(path)[0] - 1]
        chars = _chars(page, make_chars)
        w, h = page.rect.width, page.rect.height
        rects = [pymupdf.Rect(c["x0"], c["y0"], c["x1"], c["y1"]) for c in chars[::50]]  # on a char's edges
        for _ in range(300):
            x0, y0 = rng.uniform(0, w), rng.uniform(0, h)
            rects.append(pymupdf.Rect(x0, y0, x0 + rng.uniform(0, w / 2), y0 + rng.uniform(0, h / 2)))
    answers = [PYMUPDF_CHARS_IN_RECT(pt.CHARS, r) for r in rects]
    assert [chars_in_rect(pt.CHARS, r) for r in rects] == answers
    assert any(answers) and not all(answers)
    assert [chars_in_rect(chars[:10], r) for r in rects] == [PYMUPDF_CHARS_IN_RECT(chars[:10], r) for r in rects]


def _tables(page: pymupdf.Page) -> list:
    page.layout_information = None
    return [(tuple(t.bbox), [row.cells for row in t.rows]) for t in page.find_tables(use_layout=True).tables]


def test_the_finder_finds_the_same_tables_and_puts_pymupdfs_code_back() -> None:
    path = need(TEN_K)
    with pymupdf.open(path) as doc:
        pages = [doc[n - 1] for n in table_candidate_pages(path)[:8]]
        with boxes_only():
            theirs = [_tables(page) for page in pages]
        with fast_finder():
            assert pt.make_chars is make_chars and pt.chars_in_rect is chars_in_rect
            with fast_finder():  # nested: the inner exit keeps the outer's speed-ups
                pass
            assert pt.make_chars is make_chars
            ours = [_tables(page) for page in pages]
    assert ours == theirs and any(theirs)
    assert pt.make_chars is PYMUPDF_MAKE_CHARS and pt.chars_in_rect is PYMUPDF_CHARS_IN_RECT


def test_another_pymupdf_version_runs_its_own_code(monkeypatch: pytest.MonkeyPatch) -> None:
    finder_speed.replaceable.cache_clear()
    monkeypatch.setitem(finder_speed.KNOWN_SOURCES, "make_chars", "0" * 16)
    try:
        with fast_finder():
            assert pt.make_chars is PYMUPDF_MAKE_CHARS and pt.chars_in_rect is chars_in_rect
    finally:
        finder_speed.replaceable.cache_clear()
