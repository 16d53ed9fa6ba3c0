"""Page furniture: what the parser drops from the content but a page still carries, read for the layout layer.

    pages = read_page_furniture(Path("annual-report-2017.pdf"))
    pages[12].label, pages[12].header, pages[12].footer   # "12" (or "iv", "A-3"; "" if unknown), the running lines

The label is PyMuPDF's ``Page.get_label()``; where the PDF defines none, the page number printed in the running header
or footer ("12", "Page 12", "12 of 80") is the label, so "page 12" in a question can mean the number on the page. A bare
number that is a page's first or last block, or starts or ends a running line, counts too when its offset from the
physical page is the document's usual one: a year or version repeated on every page changes offset with each page.
Running lines are found as the parser finds them (:func:`~bookrag_neo4j.parsing.page_rules.running_lines`), on plain
text blocks (no table finder); a scanned page is read through OCR, from the parse's cache (:mod:`.ocr`).
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import DocumentError
from ..keys import stored_name
from .blocks import Block
from .page_rules import PAGE_NUMBER, running_lines

if TYPE_CHECKING:
    from .ocr import OcrOptions

log = logging.getLogger(__name__)

_NUMBER = re.compile(r"[\dIVXLCivxlc]{1,5}")
_ENDS = (re.compile(r"^(\d{1,4})\b"), re.compile(r"\b(\d{1,4})$"))  # a number that starts, or ends, a line
MIN_PAGES = 3  # pages that must share an offset before it counts
MAX_LINE = 300  # characters kept of a header or footer


@dataclass(frozen=True)
class PageFurniture:
    """A page's printed label and running header and footer (1-based ``number``)."""

    number: int
    label: str = ""
    header: str = ""
    footer: str = ""


def _printed_number(blocks: list[Block]) -> str:
    for block in blocks:
        if PAGE_NUMBER.match(block.text):
            found = _NUMBER.search(block.text.lower().removeprefix("page").strip())
            if found:
                return found.group(0)
    return ""


def _usual(found: dict[int, list[str]]) -> dict[int, str]:
    """Of each page's candidate numbers, the one at the most common offset from the page number, where that
    offset is seen on 3+ pages; pages without one are left out."""
    counts = Counter(o for n, vs in found.items() for o in {int(v) - n for v in vs if v.isdigit()})
    if not counts or counts.most_common(1)[0][1] < MIN_PAGES:
        return {}
    usual = counts.most_common(1)[0][0]
    return {n: v for n, vs in found.items() for v in vs if v.isdigit() and int(v) - n == usual}


def _edge_numbers(pages: dict[int, list[Block]]) -> dict[int, str]:
    """Printed numbers from a bare number that is a page's first or last block, at the usual offset."""
    return _usual({n: [_printed_number([min(bs, key=lambda b: b.bbox[1]), max(bs, key=lambda b: b.bbox[3])])]
                   for n, bs in pages.items() if bs})


def _running_numbers(marked: dict[int, list[Block]]) -> dict[int, str]:
    """Printed numbers that start or end a running line ("Version 1.3 7"), at the usual offset."""
    return _usual({n: [m.group(1) for b in bs for end in _ENDS if (m := end.search(b.text))]
                   for n, bs in marked.items()})


def _fill_gaps(labels: dict[int, str]) -> dict[int, str]:
    """A page without a label between the nearest labelled pages before and after it, whose numbers sit at the
    same offset from their pages, gets the number at that offset (a lone number OCR could not read, a full-page
    figure printed without one)."""
    numbered = [(n, int(v) - n) for n, v in sorted(labels.items()) if v.isdigit()]
    filled = dict(labels)
    for (first, offset), (last, after) in zip(numbered, numbered[1:], strict=False):
        if offset == after:
            filled |= {n: str(n + offset) for n in range(first + 1, last) if not filled[n]}
    return filled


def read_page_furniture(path: Path, ocr_options: OcrOptions | None = None) -> dict[int, PageFurniture]:
    """Label, header and footer of every page of the PDF at ``path``, by 1-based page number; a page that looks
    scanned is read through OCR (``ocr_options``; its cache holds the parse's readings)."""
    import pymupdf  # here: a question's path imports this module (the layout layer) but never reads a PDF

    from . import ocr

    try:  # from its bytes: MuPDF cannot open a path whose name is not UTF-8
        doc = pymupdf.open(stream=path.read_bytes(), filetype="pdf")
    except Exception as exc:  # PyMuPDF raises its own FileDataError, RuntimeError, ...
        raise DocumentError(f"{stored_name(path)}: cannot be opened as a PDF ({exc})") from exc
    with doc:
        pages: dict[int, list[Block]] = {}
        heights: dict[int, float] = {}
        labels: dict[int, str] = {}
        for page in doc.pages():
            number = page.number + 1
            heights[number] = page.rect.height
            labels[number] = page.get_label() or ""
            pages[number] = [Block("text", " ".join(text.split()), number, (x0, y0, x1, y1))
                             for x0, y0, x1, y1, text, _, kind in page.get_text("blocks") if kind == 0 and text.strip()]
        if ocr_options is not None and ocr.tesseract() is not None:
            ocr.read_scanned_pages(doc, stored_name(path), pages, ocr_options)
    running = running_lines(pages, heights)
    edge = _edge_numbers(pages)
    marked_by_page = {n: [b for b in blocks if id(b) in running] for n, blocks in pages.items()}
    in_line = _running_numbers(marked_by_page)
    found = _fill_gaps({n: labels[n] or _printed_number(marked) or edge.get(n, "") or in_line.get(n, "")
                        for n, marked in marked_by_page.items()})
    out: dict[int, PageFurniture] = {}
    for number, marked in marked_by_page.items():
        top = [b for b in marked if b.bbox[3] < heights[number] / 2]
        bottom = [b for b in marked if b.bbox[3] >= heights[number] / 2]
        out[number] = PageFurniture(
            number=number,
            label=found[number],
            header=" | ".join(b.text for b in top)[:MAX_LINE],
            footer=" | ".join(b.text for b in bottom)[:MAX_LINE] or edge.get(number, ""),
        )
    return out
