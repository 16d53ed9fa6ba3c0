"""Tables on scanned pages: the page's OCR'd words laid as invisible text over its image (a "sandwich" page, in
memory), so that PyMuPDF's region model and table finder, which read a PDF's own text, read a scan too.

    scanned = read_scanned_pages(doc, name, pages, options)          # {page: ScannedPage}
    found = scanned_tables(doc, scanned, [3, 7], "regions")           # {page: PageTables}

Only the layout finder reads a scan (a scanned table's ruling lines are pixels, not drawings), and only on the
pages whose OCR'd lines look like a table (:func:`row_cells`, as the parser's signal on a text page); each costs
about what the finder costs on a text page. On every scanned page it found more false tables than true ones
(docs/eval/ocr-scan-layout/).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable
from statistics import median

import pymupdf

from .ocr import ScannedPage
from .tables import PageTables, TableMode, find_on_page

log = logging.getLogger(__name__)

_FONT = pymupdf.Font("helv")


def row_cells(page: ScannedPage) -> list[int]:
    """How many OCR'd lines sit side by side on each text row (the parser's table signal, as for a text page)."""
    rows: Counter[int] = Counter()
    for line in page.lines:
        top, bottom = min(box.y0 for box, _ in line), max(box.y1 for box, _ in line)
        rows[round((top + bottom) / 4)] += 1
    return list(rows.values())


def _lay_words(target: pymupdf.Page, page: ScannedPage) -> None:
    """Each OCR'd word as invisible text in its box: the line's size, narrower where the word is wider than its box."""
    writer = pymupdf.TextWriter(target.rect)
    for line in page.lines:
        size = max(median(box.height for box, _ in line) * 0.8, 2.0)
        for box, word in line:
            width = _FONT.text_length(word, fontsize=size)
            fitted = size * min(1.0, box.width / width) if width > 0 else size
            writer.append((box.x0, box.y1 - 0.2 * box.height), word, font=_FONT, fontsize=max(fitted, 1.0))
    writer.write_text(target, render_mode=3)  # 3: invisible, as an OCR'd PDF's text layer


def sandwich(doc: pymupdf.Document, scanned: dict[int, ScannedPage], numbers: Iterable[int]) -> pymupdf.Document:
    """A document of the pages ``numbers`` of ``doc`` (in that order), each its image with its OCR'd words."""
    out = pymupdf.open()
    for number in numbers:
        source = doc[number - 1]
        target = out.new_page(width=source.rect.width, height=source.rect.height)
        target.show_pdf_page(target.rect, doc, number - 1)
        _lay_words(target, scanned[number])
    return out


def scanned_tables(doc: pymupdf.Document, scanned: dict[int, ScannedPage], pages: list[int],
                   mode: TableMode) -> dict[int, PageTables]:
    """The tables (and the region model's regions) of the scanned ``pages``, found in-process on their
    sandwiches; nothing unless ``mode`` is ``regions``."""
    if mode != "regions" or not pages:
        return {}
    with sandwich(doc, scanned, pages) as laid:
        found = {number: find_on_page(laid[i], number, mode) for i, number in enumerate(pages)}
    log.debug("table finder read %d scanned page(s)", len(found))
    return found
