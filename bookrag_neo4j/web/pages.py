"""Pages of indexed PDFs for the web app: a page rendered as PNG (PyMuPDF), and each citation as the page it
points to with its evidence box placed on that image (as shares of the page, so the box scales with it).

    png = render_page(Path("R-data.pdf"), 12, scale=1.5)   # at most MAX_PIXELS: a huge page comes out smaller
    view = CitationView.of(citation, page_size=page_size(Path("R-data.pdf"), 12))
    view.box    # Box(left=11.2, top=40.5, width=77.0, height=8.1), percent of the page

A render's memory and time grow with its pixels, so a page is never drawn larger than ``MAX_PIXELS`` (a
14,400-point page asked for at scale 1.2 would be 300 million). Renders run on worker threads, off the event loop;
PyMuPDF is not thread-safe, so every use here holds one lock, and it keeps the GIL while it draws, so the pixel
budget is also what bounds the pause a render gives the other requests.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pymupdf

from ..errors import DocumentError
from ..keys import stored_name, stored_text
from ..retrieval.results import Citation

MIN_SCALE, MAX_SCALE = 0.2, 3.0
MAX_PIXELS = 8_000_000  # a US Letter page at scale 3 is 4.4 million
_LOCK = threading.Lock()


@lru_cache(maxsize=16)
def _open(path: str, mtime: float) -> pymupdf.Document:  # mtime: a replaced file is opened again
    return pymupdf.open(stream=Path(path).read_bytes(), filetype="pdf")  # MuPDF cannot open a name not UTF-8


class PageUnavailableError(DocumentError):
    """The page cannot be shown: the document has no such page, or its PDF is gone from where it was indexed
    (the web app answers 404)."""


def _page(path: Path, number: int) -> pymupdf.Page:
    """Page ``number`` (1-based, as citations count) of the PDF at ``path``; messages name the file as the index
    stores it (a name in bytes that are not UTF-8 with ``\\xNN``, never a surrogate no page can encode)."""
    try:
        doc = _open(str(path), path.stat().st_mtime)
    except (OSError, RuntimeError) as exc:
        raise PageUnavailableError(f"{stored_name(path)}: the PDF is no longer where it was indexed from "
                                   f"({stored_text(str(path))})") from exc
    if not 1 <= number <= doc.page_count:
        raise PageUnavailableError(f"{stored_name(path)} has no page {number} (it has {doc.page_count})")
    return doc[number - 1]


def page_size(path: Path, number: int) -> tuple[float, float]:
    """Width and height of a page, in points."""
    with _LOCK:
        rect = _page(path, number).rect
    return rect.width, rect.height


def fit_scale(width: float, height: float, scale: float) -> float:
    """``scale`` clamped to 0.2-3, and lowered (below 0.2 too) as far as a page of this size in points needs to
    stay within ``MAX_PIXELS``."""
    scale = min(max(scale, MIN_SCALE), MAX_SCALE)
    return min(scale, math.sqrt(MAX_PIXELS / max(width * height, 1.0)))


def render_page(path: Path, number: int, *, scale: float = 1.0) -> bytes:
    """A page as PNG bytes, ``scale`` times its size in points (see :func:`fit_scale`)."""
    with _LOCK:
        page = _page(path, number)
        scale = fit_scale(page.rect.width, page.rect.height, scale)
        return page.get_pixmap(matrix=pymupdf.Matrix(scale, scale), alpha=False).tobytes("png")


@dataclass(frozen=True)
class Box:
    """A box on a page, in percent of its width and height (CSS ``left/top/width/height``)."""

    left: float
    top: float
    width: float
    height: float

    @classmethod
    def of(cls, bbox: list[float], width: float, height: float) -> Box | None:
        """``bbox`` (x0, y0, x1, y1 in points) clipped to the page; ``None`` when nothing of it is on the page."""
        x0, y0, x1, y1 = (max(0.0, min(bbox[0], width)), max(0.0, min(bbox[1], height)),
                          max(0.0, min(bbox[2], width)), max(0.0, min(bbox[3], height)))
        if x1 <= x0 or y1 <= y0:
            return None
        return cls(round(100 * x0 / width, 2), round(100 * y0 / height, 2), round(100 * (x1 - x0) / width, 2),
                   round(100 * (y1 - y0) / height, 2))


@dataclass(frozen=True)
class PageBox:
    """A box to highlight: its page (1-based) and its corners in points (x0, y0, x1, y1)."""

    page: int
    bbox: tuple[float, float, float, float]


@dataclass(frozen=True)
class CitationView:
    """A citation as the answer page shows it: its label, the page to show, and the evidence boxes on it."""

    label: str  # without the document: citations are shown under their document's heading
    doc_key: str
    document: str
    page: int
    boxes: list[Box]
    text: str = ""
    has_page: bool = False  # the PDF is where it was indexed from: its page can be shown

    @classmethod
    def of(cls, citation: Citation, *, pdf: Path | None, boxes: list[PageBox], text: str = "") -> CitationView:
        """The page is the citation's first page with a box (else its first page); the boxes those on it."""
        pages = [b.page for b in boxes if b.page >= max(citation.page_start, 1)]
        page = min(pages) if pages else max(citation.page_start, 1)
        try:
            width, height = page_size(pdf, page) if pdf is not None else (0.0, 0.0)
        except DocumentError:
            width = height = 0.0
        shown = [box for b in boxes if width and b.page == page and (box := Box.of(list(b.bbox), width, height))]
        return cls(citation.label(document=False), citation.doc_key, citation.document, page, shown, text,
                   has_page=bool(width))
