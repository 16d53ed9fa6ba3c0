"""Exact speed-ups of PyMuPDF's table finder, in effect only while bookrag-neo4j calls it.

    with fast_finder():
        tables = page.find_tables(use_layout=True).tables

``find_tables(use_layout=True)`` spends its CPU in three places (docs/eval/indexing.md): :func:`boxes_only` turns off
the table-grid model that the region model runs on each table, as the finder reads only boxes; :func:`make_chars` does
``pymupdf.table.make_chars``' per-character float32 transforms in one numpy pass; :func:`chars_in_rect` tests all
characters at once. Each returns exactly what PyMuPDF's code returns (``tests/integration/test_finder_speed.py``) and is
used only where PyMuPDF's function is the one it was written against. Uses nest and may come from several threads: the
first in swaps, the last out restores, so a caller's own ``pymupdf4llm`` is untouched.
"""

from __future__ import annotations

import hashlib
import inspect
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from functools import cache
from typing import Any, cast

import numpy as np
import pymupdf
import pymupdf.table as pt

log = logging.getLogger(__name__)

FLT_EPSILON = float(np.finfo(np.float32).eps)
# sha256 of the source of the PyMuPDF functions replaced here (PyMuPDF 2.0), first 16 hex digits
KNOWN_SOURCES = {"make_chars": "4631a69307e0bb81", "chars_in_rect": "ea960d781eb3462a"}


class _Swap:
    """Set ``owner.name`` to a value while at least one user is inside; restore it when the last one leaves."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.users = 0
        self.saved: Any = None

    @contextmanager
    def __call__(self, owner: Any, name: str, value: Any) -> Iterator[None]:
        with self.lock:
            if self.users == 0:
                self.saved = getattr(owner, name)
                setattr(owner, name, value)
            self.users += 1
        try:
            yield
        finally:
            with self.lock:
                self.users -= 1
                if self.users == 0:
                    setattr(owner, name, self.saved)


_grids, _chars, _in_rect = _Swap(), _Swap(), _Swap()
_pymupdf_make_chars, _pymupdf_chars_in_rect = pt.make_chars, pt.chars_in_rect


@cache
def layout_model() -> Any | None:
    """The model behind ``Page.get_layout()`` (``pymupdf.layout`` registers it at import), or ``None`` where this
    PyMuPDF keeps it elsewhere: then :func:`boxes_only` changes nothing."""
    import pymupdf.layout  # noqa: F401  (registers the model with PyMuPDF)

    try:
        model = inspect.getclosurevars(cast(Callable[..., Any], pymupdf._get_layout)).nonlocals["MODEL"]._model
        model.table_grid_extractor  # noqa: B018  (the attribute boxes_only sets)
    except (TypeError, KeyError, AttributeError):
        log.info("PyMuPDF's region model is not where bookrag-neo4j looks: its table grids stay on")
        return None
    return model


@contextmanager
def boxes_only() -> Iterator[None]:
    """The region model without its table-grid model for the duration."""
    model = layout_model()
    if model is None:
        yield
        return
    with _grids(model, "table_grid_extractor", None):
        yield


@cache
def replaceable(name: str) -> bool:
    """Whether PyMuPDF's ``pymupdf.table.<name>`` is the code the replacement here reproduces."""
    source = inspect.getsource(getattr(pt, name))
    same = hashlib.sha256(source.encode()).hexdigest()[:16] == KNOWN_SOURCES[name]
    if not same:
        log.info("pymupdf.table.%s is not the version bookrag-neo4j reproduces: PyMuPDF's own code runs", name)
    return same


@contextmanager
def fast_finder() -> Iterator[None]:
    """:func:`boxes_only`, plus :func:`make_chars` and :func:`chars_in_rect` in place of PyMuPDF's."""
    with ExitStack() as stack:
        stack.enter_context(boxes_only())
        if replaceable("make_chars"):
            stack.enter_context(_chars(pt, "make_chars", make_chars))
        if replaceable("chars_in_rect"):
            stack.enter_context(_in_rect(pt, "chars_in_rect", chars_in_rect))
        yield


def _transform(x: np.ndarray, y: np.ndarray, m: pymupdf.Matrix) -> tuple[np.ndarray, np.ndarray]:
    """MuPDF's ``fz_transform_point`` in its float32 arithmetic: ``x*a + y*c + e``, ``x*b + y*d + f``."""
    a, b, c, d, e, f = (np.float32(v) for v in (m.a, m.b, m.c, m.d, m.e, m.f))
    return (x * a + y * c) + e, (x * b + y * d) + f


_boxes: tuple[list, int, np.ndarray] = ([], 0, np.zeros((0, 4)))  # the last CHARS list, its length, x0 x1 y0 y1


def make_chars(page: pymupdf.Page, clip: Any = None) -> Any:
    """``pymupdf.table.make_chars``: the same character dicts in the same order. Pages whose matrix is not
    axis-aligned (MuPDF then transforms all four corners of a box) go to PyMuPDF's own code."""
    global _boxes
    ctm = page.transformation_matrix
    if abs(ctm.b) >= FLT_EPSILON or abs(ctm.c) >= FLT_EPSILON:
        return _pymupdf_make_chars(page, clip=clip)
    chars = pt.CHARS._list()
    page_number = page.number + 1
    doctop_base = page.rect.height * page.number
    textpage = page.get_textpage(clip=clip, flags=pt.FLAGS)
    runs = []  # per character: its line's direction, its span's font, size, bold and colour, the char dict
    for block in page.get_text("rawdict", textpage=textpage)["blocks"]:
        for line in block["lines"]:
            ldir = (round(line["dir"][0], 4), round(line["dir"][1], 4))
            for span in sorted(line["spans"], key=lambda s: s["bbox"][0]):
                style = (ldir, span["font"], span["size"],
                         bool(span["flags"] & pymupdf.TEXT_FONT_BOLD or span["char_flags"] & 8),
                         pymupdf.sRGB_to_pdf(span["color"]))
                runs += [(style, char) for char in sorted(span["chars"], key=lambda c: c["bbox"][0])]
    if not runs:
        return textpage
    boxes = np.array([char["bbox"] for _, char in runs], dtype=np.float32)
    origins = np.array([char["origin"] for _, char in runs], dtype=np.float32)
    # fz_transform_rect with an axis-aligned matrix: order the corners by the matrix's signs, transform two points
    x0, x1 = (boxes[:, 2], boxes[:, 0]) if ctm.a < 0 else (boxes[:, 0], boxes[:, 2])
    y0, y1 = (boxes[:, 3], boxes[:, 1]) if ctm.d < 0 else (boxes[:, 1], boxes[:, 3])
    _, top = _transform(x0, y0, ctm)
    _, bottom = _transform(x1, y1, ctm)
    ox, oy = _transform(origins[:, 0], origins[:, 1], ctm)
    for ((ldir, fontname, fontsize, bold, color), char), cy0, cy1, e, f in zip(
            runs, top.tolist(), bottom.tolist(), ox.tolist(), oy.tolist(), strict=True):
        bx0, by0, bx1, by1 = char["bbox"]
        upright = ldir[1] == 0
        chars.append({
            "adv": bx1 - bx0 if upright else by1 - by0,
            "bottom": by1,
            "doctop": by0 + doctop_base,
            "fontname": fontname,
            "height": by1 - by0,
            "matrix": (float(ldir[0]), float(-ldir[1]), float(ldir[1]), float(ldir[0]), e, f),
            "ncs": "DeviceRGB",
            "non_stroking_color": color,
            "non_stroking_pattern": None,
            "object_type": "char",
            "page_number": page_number,
            "size": fontsize if upright else by1 - by0,
            "stroking_color": color,
            "stroking_pattern": None,
            "bold": bold,
            "text": char["c"],
            "top": by0,
            "upright": upright,
            "width": bx1 - bx0,
            "x0": bx0,
            "x1": bx1,
            "y0": cy0,
            "y1": cy1,
        })
    if len(chars) == len(runs):  # the list held only this page's characters: its boxes are the arrays above
        _boxes = (chars, len(chars), np.column_stack((boxes[:, 0], boxes[:, 2], top, bottom)).astype(np.float64))
    return textpage


def chars_in_rect(chars: Any, rect: Any) -> bool:
    """``pymupdf.table.chars_in_rect``: whether a character lies wholly inside ``rect`` (x0, y0, x1, y1 in the
    characters' ``x0``, ``x1``, ``y0``, ``y1``), tested on the arrays :func:`make_chars` left."""
    listed = chars._list() if isinstance(chars, pt._TableStateList) else chars
    made, count, b = _boxes  # one read: another thread may replace it
    if listed is not made or len(listed) != count:
        return _pymupdf_chars_in_rect(chars, rect)
    return bool(np.any((rect[0] <= b[:, 0]) & (b[:, 1] <= rect[2]) & (rect[1] <= b[:, 2]) & (rect[3] >= b[:, 3])))
