"""Parsing real PDFs with PyMuPDF, and bad input failing cleanly."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pymupdf
import pytest

from bookrag_neo4j.errors import DocumentError
from bookrag_neo4j.parsing.blocks import Block
from bookrag_neo4j.parsing.pymupdf_parser import parse_pdf
from bookrag_neo4j.parsing.refine import dehyphenate, refine

from .pdfs import R_INTRO, RAG_SURVEY, TEN_K, need


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
    parsed = parse_pdf(need(TEN_K))
    tables = [b for b in parsed.blocks if b.kind == "table"]
    assert len(tables) >= 10
    assert any("Net sales" in t.text or "Total net sales" in t.text for t in tables)


def test_images_are_extracted_to_files(tmp_path: Path) -> None:
    parsed = parse_pdf(need(RAG_SURVEY), image_dir=tmp_path)
    files = [Path(b.image_path) for b in parsed.blocks if b.kind == "image"]
    assert files and all(f.is_file() and f.read_bytes()[:4] == b"\x89PNG" for f in files)


def pdf_with(tmp_path: Path, pages: list[str | None], name: str = "doc.pdf", **save: object) -> Path:
    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page()
        if text:
            page.insert_text((72, 72), text, fontsize=11)
    path = tmp_path / name
    doc.save(path, **save)
    return path


def test_corrupt_pdf(tmp_path: Path) -> None:
    bad = tmp_path / "corrupt.pdf"
    bad.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 20)
    with pytest.raises(DocumentError, match="not a readable PDF"):
        parse_pdf(bad)
    with pytest.raises(DocumentError, match="cannot read"):
        parse_pdf(tmp_path / "missing.pdf")


def test_encrypted_pdf(tmp_path: Path) -> None:
    path = pdf_with(tmp_path, ["secret"], encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="u-pass", owner_pw="o-pass")
    with pytest.raises(DocumentError, match="encrypted"):
        parse_pdf(path)


def test_image_only_and_blank_pdfs(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="no text layer"):
        parse_pdf(pdf_with(tmp_path, [None, None]))
    doc = pymupdf.open()
    page = doc.new_page()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 200, 200), False)
    pix.clear_with(200)
    page.insert_image(pymupdf.Rect(50, 50, 450, 450), pixmap=pix)
    doc.save(tmp_path / "scan.pdf")
    with pytest.raises(DocumentError, match="OCR"):
        parse_pdf(tmp_path / "scan.pdf")


def test_empty_page_is_a_warning(tmp_path: Path) -> None:
    parsed = parse_pdf(pdf_with(tmp_path, ["First page text.", None, "Third page text."]))
    assert parsed.warnings == ["page 2 is empty"]
    assert [b.page for b in parsed.blocks] == [1, 3]


def test_refinement() -> None:
    assert dehyphenate("an exam-\nple of text\nacross lines") == "an example of text across lines"
    blocks = [
        Block("text", "The results were consistent with", page=1, bbox=(300, 700, 550, 740)),
        Block("text", "earlier findings.", page=2, bbox=(50, 60, 300, 80)),
        Block("text", "@@## %% ^^ && ** ((( ))) !! ~~ ++", page=2),
        Block("title", "Chapter 2", page=2),
    ]
    out = refine(blocks)
    assert [b.text for b in out] == ["The results were consistent with earlier findings.", "Chapter 2"]
    assert out[0].page == 1 and out[0].page_end == 2
