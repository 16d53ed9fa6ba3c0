"""Real documents the tests read: a Debian manual (installed by `make test`) and dev-benchmark PDFs; and the
fixture folders under ``tests/fixtures/``."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"  # tests/fixtures
MINERU_SAMPLE = FIXTURES / "mineru_sample"
MINERU_UNNUMBERED = FIXTURES / "mineru_unnumbered"  # headings without numbering: levels from text_level

R_INTRO = Path("/usr/share/R/doc/manual/R-intro.pdf")
R_DATA = Path("/usr/share/R/doc/manual/R-data.pdf")  # 41 pages, outline; the web app test uploads it
BENCHMARKS = Path(__file__).resolve().parents[3] / "shared" / "benchmarks"  # ../shared/benchmarks of the checkout
RAG_SURVEY = BENCHMARKS / "mmlongbench" / "pdfs" / "2312.10997v5.pdf"  # 21 pages, outline, figures, tables
TEN_K = BENCHMARKS / "financebench" / "pdfs" / "AMAZON_2017_10K.pdf"  # 85 pages, no outline, financial tables
FOOTLOCKER = BENCHMARKS / "financebench" / "pdfs" / "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf"  # a short 8-K
ACL_PAPER = BENCHMARKS / "mmlongbench" / "pdfs" / "2023.acl-long.386.pdf"  # 24 pages, "Table 3:" on page 8


def need(path: Path) -> Path:
    if path in (R_INTRO, R_DATA) and not path.exists():
        pytest.fail(f"{path.name} is missing: `make test` installs it (apt-get install r-doc-pdf)")
    if not path.exists():
        pytest.skip(f"{path} is not here (the dev benchmarks live in ../shared/benchmarks)")
    return path


def excerpt(path: Path, out: Path, first: int, last: int) -> Path:
    """Pages ``first``..``last`` (1-based, inclusive) of ``path`` as a PDF of their own at ``out``: a real
    document's layout at a fraction of its indexing time."""
    with pymupdf.open(need(path)) as src, pymupdf.open() as doc:
        doc.insert_pdf(src, from_page=first - 1, to_page=last - 1)
        doc.save(out)
    return out


def tiny_pdf(path: Path, org: str, person: str, country: str, thing: str) -> Path:
    """Three numbered sections of sentences naming people, organisations and places (entities for spaCy)."""
    pdf = pymupdf.open()
    for number, title in enumerate(("Overview", "Operations", "Outlook"), start=1):
        page = pdf.new_page()
        page.insert_text((72, 72), f"{number} {title}", fontsize=16)
        for line in range(8):
            page.insert_text((72, 110 + 32 * line), f"{person} leads {org} in {country}; in {2018 + line} it shipped "
                             f"{line + 3} million {thing}.", fontsize=10)
            page.insert_text((72, 126 + 32 * line), f"{org} works with the Bank of {country} and {person} reports "
                             "to the board in London.", fontsize=10)
    pdf.save(path)
    return path


def dense_page_pdf(path: Path, *fragments: int) -> Path:
    """A page for each count of ``fragments``: that many one-letter text fragments on a 100-column grid, font
    sizes cycling through 2, 3 and 4 points, so that nearly every fragment is a block of its own (a dense chart's
    labels, an OCR layer of noise)."""
    doc = pymupdf.open()
    font = pymupdf.Font("helv")
    for count in fragments:
        page = doc.new_page()
        writer = pymupdf.TextWriter(page.rect)  # 10,000 insert_text calls would take a minute
        rows = (count + 99) // 100
        for i in range(count):
            row, col = divmod(i, 100)
            writer.append((10 + col * 5.9, 12 + row * 770 / rows), "w", font=font, fontsize=2 + i % 3)
        writer.write_text(page)
    doc.save(path)
    return path


def empty_pages_pdf(path: Path, pages: int) -> Path:
    """A first page of text, then ``pages - 1`` empty pages."""
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "The only page with text.", fontsize=11)
    for _ in range(pages - 1):
        doc.new_page()
    doc.save(path)
    return path


def untitled_pdf(path: Path, org: str, thing: str) -> Path:
    """Two pages of plain sentences: no metadata title and no heading, so the document's title is its file's
    name."""
    pdf = pymupdf.open()
    for page_number in range(2):
        page = pdf.new_page()
        for line in range(10):
            page.insert_text((72, 100 + 20 * line), f"{org} ships {thing} from plant {page_number * 10 + line}; "
                             f"each batch of {thing} is checked twice.", fontsize=10)
    pdf.save(path)
    return path


def outlined_pdf(path: Path, sections: list[tuple[int, str, list[str]]]) -> Path:
    """A page per section (outline level, title, lines of text), the outline listing them."""
    pdf = pymupdf.open()
    for _level, title, lines in sections:
        page = pdf.new_page()
        page.insert_text((72, 72), title, fontsize=13)
        for i, line in enumerate(lines):
            page.insert_text((72, 110 + 18 * i), line, fontsize=10)
    pdf.set_toc([[level, title, page] for page, (level, title, _lines) in enumerate(sections, 1)])
    pdf.save(path)
    return path
