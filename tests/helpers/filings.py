"""Small documents with covers as their kinds print them, for document cards and library routing: a 10-K filing
(its cover, then a page of figures), the same cover as a scan, a paper without metadata, a product brochure."""

from __future__ import annotations

from pathlib import Path

import pymupdf

COVER = ["UNITED STATES", "SECURITIES AND EXCHANGE COMMISSION", "Washington, D.C. 20549", "FORM 10-K",
         "ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934",
         "For the fiscal year ended December 31, {year}", "Commission file number 1-{number}", "{issuer}",
         "(Exact name of registrant as specified in its charter)", "Delaware 41-0417775",
         "Common Stock, Par Value $.01 Per Share {ticker} New York Stock Exchange"]


def _page(doc: pymupdf.Document, lines: list[str], *, size: float = 10) -> None:
    page = doc.new_page()
    for i, line in enumerate(lines):
        page.insert_text((72, 80 + 20 * i), line, fontsize=size)


def filing(path: Path, issuer: str, year: int, ticker: str, product: str, revenue: int) -> Path:
    """A 10-K of ``issuer`` for fiscal ``year``: its cover, then a page on revenue and one on risks."""
    with pymupdf.open() as doc:
        _page(doc, [line.format(year=year, number=1000 + year % 100, issuer=issuer, ticker=ticker) for line in COVER])
        _page(doc, ["Item 7. Management's Discussion and Analysis",
                    f"Revenue for fiscal {year} was {revenue} million dollars, driven by {product} sales.",
                    f"Operating income for fiscal {year} was {revenue // 5} million dollars.",
                    f"The company shipped {revenue * 3} {product} units to customers in {year}."])
        _page(doc, ["Item 1A. Risk Factors", f"Demand for {product} may fall; suppliers of {product} parts may fail.",
                    "Competition is intense and prices may decline over the coming years."])
        doc.set_metadata({})
        doc.save(path)
    return path


def scanned_filing(path: Path, issuer: str, year: int) -> Path:
    """The cover of a 10-K printed to an image (a scan: no text layer) and a page of text after it."""
    with pymupdf.open() as source, pymupdf.open() as doc:
        _page(source, [line.format(year=year, number=1234, issuer=issuer, ticker="SCN") for line in COVER], size=12)
        image = source[0].get_pixmap(dpi=200, colorspace=pymupdf.csGRAY).tobytes("png")
        cover = doc.new_page()
        cover.insert_image(cover.rect, stream=image)
        _page(doc, [f"Revenue for fiscal {year} was 40 million dollars.", "Operating income was 8 million dollars."])
        doc.save(path)
    return path


def paper(path: Path) -> Path:
    """A paper's first page: its title, authors and abstract; no PDF metadata."""
    with pymupdf.open() as doc:
        page = doc.new_page()
        page.insert_text((72, 80), "Routing Questions over a Library of Filings", fontsize=18)
        page.insert_text((72, 110), "Ada Quill and Tom Reed, Northern Institute of Technology", fontsize=10)
        page.insert_text((72, 140), "Abstract", fontsize=12)
        page.insert_text((72, 160), "We study how a question names the document it means, and route it there.",
                         fontsize=10)
        doc.set_metadata({})
        doc.save(path)
    return path


def brochure(path: Path) -> Path:
    """A product brochure: a name, a line on what it is, specifications."""
    with pymupdf.open() as doc:
        page = doc.new_page()
        page.insert_text((72, 80), "Vega X2 Telescope", fontsize=20)
        page.insert_text((72, 110), "Product brochure 2024: a compact telescope for clear nights", fontsize=11)
        page.insert_text((72, 140), "Aperture 80 mm, focal length 400 mm, weight 2.1 kg.", fontsize=10)
        doc.set_metadata({})
        doc.save(path)
    return path
