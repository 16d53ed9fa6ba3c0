"""The parts of PyMuPDF's ``page.get_text("dict")`` result that the parser reads, as typed dicts.

PyMuPDF returns the text dict untyped (``Any``); :mod:`.pymupdf_parser` annotates it as :class:`TextPage` where it
reads it, so that mypy checks the keys and value types of its blocks, lines and spans. Only the keys the parser reads
are listed (PyMuPDF writes more: colours, origins, ascenders ...).
"""

from __future__ import annotations

from typing import TypedDict

from .blocks import BBox


class TextSpan(TypedDict):
    """A span of a text line in ``get_text("dict")``: a run of text in one font, size and style."""

    text: str
    font: str
    size: float
    flags: int  # bit 1 (2): italic, bit 4 (16): bold


class TextLine(TypedDict):
    """A line of a text block in ``get_text("dict")``: its box in points and its spans."""

    bbox: BBox
    spans: list[TextSpan]


class TextBlock(TypedDict, total=False):
    """A block in ``get_text("dict")``: ``type`` 0 for text (with ``lines``), 1 for an image (without)."""

    type: int
    lines: list[TextLine]


class TextPage(TypedDict):
    """The ``get_text("dict")`` result of one page: its blocks."""

    blocks: list[TextBlock]
