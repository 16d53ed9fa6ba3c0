"""Parsing small PDFs generated in the test, bad input failing cleanly, and block refinement. (Real PDFs:
``tests/integration/test_parsing.py``.)"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from bookrag_neo4j.errors import DocumentError
from bookrag_neo4j.parsing.blocks import Block
from bookrag_neo4j.parsing.furniture import read_page_furniture
from bookrag_neo4j.parsing.pymupdf_parser import parse_pdf, table_candidate_pages
from bookrag_neo4j.parsing.refine import dehyphenate, refine


def pdf_with(tmp_path: Path, pages: list[str | None], name: str = "doc.pdf", *, header: str = "", y: float = 72,
             **save: object) -> Path:
    """One line of text a page (``None``: a blank page) at height ``y``, each under ``header`` (a running line)."""
    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page()
        if header:
            page.insert_text((72, 40), header, fontsize=9)
        if text:
            page.insert_text((72, y), text, fontsize=11)
    path = tmp_path / name
    doc.save(path, **save)
    return path


def test_corrupt_pdf(tmp_path: Path) -> None:
    bad = tmp_path / "corrupt.pdf"
    bad.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 20)
    with pytest.raises(DocumentError, match="not a readable PDF"):
        parse_pdf(bad)
    with pytest.raises(DocumentError, match="missing.pdf: no such file"):
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
    with pytest.raises(DocumentError, match="--ocr auto"):  # the parser's default: no OCR
        parse_pdf(tmp_path / "scan.pdf")


def test_empty_page_is_a_warning(tmp_path: Path) -> None:
    parsed = parse_pdf(pdf_with(tmp_path, ["First page text.", None, "Third page text."]))
    assert parsed.warnings == ["page 2 is empty"]
    assert [b.page for b in parsed.blocks] == [1, 3]


def test_a_document_whose_every_line_recurs_like_a_header_keeps_its_text(tmp_path: Path) -> None:
    """One line at the top of each page, the lines differing only in digits: as a running header would. It is
    all the text there is, so it is the content (it was dropped, with "4 pages are empty")."""
    lines = [f"Delivery note 10{i}7 for order 4{i}2" for i in range(4)]
    parsed = parse_pdf(pdf_with(tmp_path, lines, y=50), tables="off")
    assert [b.text for b in parsed.blocks] == lines and parsed.warnings == []
    numbers = parse_pdf(pdf_with(tmp_path, ["Page 1", "Page 2", "Page 3"], "numbers.pdf", y=50), tables="off")
    assert numbers.blocks == []  # bare page numbers are never content


def test_a_page_of_running_lines_only_is_named_for_what_it_holds(tmp_path: Path) -> None:
    path = pdf_with(tmp_path, ["First body text.", "Second body text.", None, "Fourth body text."],
                    header="Annual Report of the Vega Launch Company")
    parsed = parse_pdf(path, tables="off")
    assert [b.text for b in parsed.blocks] == ["First body text.", "Second body text.", "Fourth body text."]
    assert parsed.warnings == ["page 3 holds only running headers, footers or page numbers"]


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


def _two_column_rows(page: pymupdf.Page, rows: list[tuple[str, str]], *, ruled: bool) -> None:
    for i, (left, right) in enumerate(rows):
        y = 100 + 20 * i
        page.insert_text((72, y), left, fontsize=10)
        page.insert_text((300, y), right, fontsize=10)
        if ruled:
            page.draw_line((70, y + 5), (450, y + 5))


def test_the_table_prefilter_takes_ruled_two_column_tables(tmp_path: Path) -> None:
    rows = [("Grade", "Grade point"), ("A", "4.0"), ("B", "3.0"), ("C", "2.0"), ("D", "1.0"), ("F", "0.0")]
    doc = pymupdf.open()
    _two_column_rows(doc.new_page(), rows, ruled=True)       # a ruled two-column table: a candidate
    _two_column_rows(doc.new_page(), rows, ruled=False)      # the same text without rules: two columns of prose
    three = doc.new_page()                                   # three cells a row: a candidate without rules
    for i in range(4):
        for x, word in ((72, "Revenue"), (250, "2019"), (400, "2020")):
            three.insert_text((x, 100 + 20 * i), word, fontsize=10)
    path = tmp_path / "tables.pdf"
    doc.save(path)
    assert table_candidate_pages(path) == [1, 3]


def test_a_printed_page_number_at_the_end_of_a_running_line_is_the_label(tmp_path: Path) -> None:
    doc = pymupdf.open()
    for n in range(1, 9):
        page = doc.new_page()
        page.insert_text((72, 40), "Strategic Plan 2016-2018", fontsize=9)  # a running header, its year constant
        page.insert_text((72, 300), f"Body text of page {n} about the plan and its goals.", fontsize=11)
        if n > 2:  # a cover and a contents page without the footer, then "Version 1.3 1", "Version 1.3 2", ...
            page.insert_text((72, 800), f"Version 1.3 {n - 2}", fontsize=9)
    path = tmp_path / "plan.pdf"
    doc.save(path)
    pages = read_page_furniture(path)
    assert [pages[n].label for n in range(1, 9)] == ["", "", "1", "2", "3", "4", "5", "6"]
    assert pages[5].footer == "Version 1.3 3" and pages[5].header == "Strategic Plan 2016-2018"


def test_many_empty_pages_are_one_warning_in_the_report_and_the_log(tmp_path: Path,
                                                                     caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from ..helpers.pdfs import empty_pages_pdf

    with caplog.at_level(logging.WARNING, logger="bookrag_neo4j.parsing"):
        parsed = parse_pdf(empty_pages_pdf(tmp_path / "blank.pdf", 2000))
    expected = "1,999 pages are empty (pages 2, 3, 4, 5, 6, ... 2000)"
    assert parsed.warnings == [expected]
    assert [r.getMessage() for r in caplog.records if r.name.startswith("bookrag_neo4j.parsing")] == [
        f"blank.pdf: {expected}"]  # only ours: a local HTTP server of another test may log on its own thread


def test_a_page_between_two_numbered_at_one_offset_takes_its_number(tmp_path: Path) -> None:
    """A full-page figure printed without its number (or a number OCR could not read) between numbered pages
    takes the number at their offset; across a restart of the numbering, or before the first number, none."""
    printed = ["", "1", "2", "3", "4", "", "6", "7", "8", "", "1", "2"]  # a cover, a figure, a new part
    doc = pymupdf.open()
    for number in printed:
        page = doc.new_page()
        page.insert_text((72, 300), "Body text of a page about the plan and its goals.", fontsize=11)
        if number:
            page.insert_text((290, 800), number, fontsize=9)
    path = tmp_path / "report.pdf"
    doc.save(path)
    pages = read_page_furniture(path)
    assert [pages[n].label for n in range(1, 13)] == ["", "1", "2", "3", "4", "5", "6", "7", "8", "", "1", "2"]
