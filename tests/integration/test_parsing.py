"""Parsing real PDFs with PyMuPDF: R's manual, an arXiv survey, a 10-K. (Small generated PDFs and bad input
failing cleanly: ``tests/unit/test_parsing.py``.)"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bookrag_neo4j.parsing.pymupdf_parser import parse_pdf

from ..helpers.pdfs import R_INTRO, RAG_SURVEY, TEN_K, need
from ..helpers.timeouts import LONG_TEST

pytestmark = pytest.mark.timeout(LONG_TEST)  # the 10-K's tables alone took 100 s on an idle 2-core machine


@pytest.fixture(scope="module")
def r_intro():
    return parse_pdf(need(R_INTRO), tables=True)


def test_manual_blocks_outline_and_order(r_intro) -> None:
    assert r_intro.page_count == 113 and len(r_intro.outline) == 145
    assert r_intro.outline[0].level == 1 and {e.level for e in r_intro.outline} == {1, 2, 3}
    kinds = Counter(b.kind for b in r_intro.blocks)
    assert kinds["text"] > 1000 and kinds["title"] > 100
    pages = [b.page for b in r_intro.blocks]
    assert pages == sorted(pages) and pages[0] >= 1 and pages[-1] <= 113  # reading order, 1-based pages
    texts = " ".join(b.text for b in r_intro.blocks)
    assert "R is an integrated suite of software facilities" in texts  # words keep their spaces
    # running headers ("Chapter 1: Introduction and preliminaries 2") and page numbers are gone
    assert not any(b.text.startswith("Chapter 1: Introduction and preliminaries") for b in r_intro.blocks)


def test_paper_figures_and_tables_with_captions() -> None:
    parsed = parse_pdf(need(RAG_SURVEY))
    images = [b for b in parsed.blocks if b.kind == "image"]
    tables = [b for b in parsed.blocks if b.kind == "table"]
    assert len(images) >= 4 and any(b.caption.lower().startswith("fig") for b in images)
    assert tables and all(t.table_rows >= 2 and t.table_cols >= 2 for t in tables)
    captioned = [t for t in tables if t.caption]
    assert captioned and captioned[0].caption.upper().startswith("TABLE")
    assert captioned[0].table_markdown.startswith("| ") and "<table>" in captioned[0].table_html


def test_10k_tables_keep_words_apart() -> None:
    parsed = parse_pdf(need(TEN_K), workers=2)  # the table pool (its equivalence: test_table_pool.py)
    tables = [b for b in parsed.blocks if b.kind == "table"]
    assert len(tables) >= 10
    assert any("Net sales" in t.text or "Total net sales" in t.text for t in tables)


def test_images_are_extracted_to_files(tmp_path: Path) -> None:
    parsed = parse_pdf(need(RAG_SURVEY), image_dir=tmp_path)
    files = [Path(b.image_path) for b in parsed.blocks if b.kind == "image"]
    assert files and all(f.is_file() and f.read_bytes()[:4] == b"\x89PNG" for f in files)
