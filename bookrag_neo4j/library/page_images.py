"""Pages of indexed PDFs as PNG images (PyMuPDF), for every door that shows them (the web app's viewer, MCP's
page resources).

    png = render_page(Path("R-data.pdf"), 12, scale=1.5)   # at most MAX_PIXELS: a huge page comes out smaller
    width, height = page_size(Path("R-data.pdf"), 12)       # in points

A render's memory and time grow with its pixels, so a page is never drawn larger than ``MAX_PIXELS`` (a
14,400-point page asked for at scale 1.2 would be 300 million). Call it from worker threads, off the event loop;
PyMuPDF is not thread-safe, so every use here holds one lock, and it keeps the GIL while it draws, so the pixel
budget is also what bounds the pause a render gives the other requests.
"""

from __future__ import annotations

import math
import threading
from functools import lru_cache
from pathlib import Path

import pymupdf

from ..errors import DocumentError
from ..keys import stored_name, stored_text

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
        png: bytes = page.get_pixmap(matrix=pymupdf.Matrix(scale, scale), alpha=False).tobytes("png")
        return png
