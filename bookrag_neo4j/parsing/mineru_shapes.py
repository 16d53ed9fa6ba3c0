"""The parts of MinerU's output files that the adapter reads, as typed dicts: content-list items and middle.json pages.

The JSON is parsed untyped; :mod:`.mineru_blocks` and :mod:`.mineru_boxes` cast each object to these shapes where it
enters, so that mypy checks the keys read. The value types are those MinerU writes, not checked by the cast: a file
from another version, or a damaged one, may hold anything, so the readers still test each value before using it.
Every key may be missing (``total=False``): the versions differ in the keys they write (see :mod:`.mineru`).
"""

from __future__ import annotations

from typing import TypedDict


class ContentItem(TypedDict, total=False):
    """An item of ``*_content_list.json``: one block of the document, in reading order."""

    type: str  # "text" (a title has a text_level), "list", "code", "equation", "image", "table", "header" ...
    page_idx: int  # 0-based
    bbox: list[float]  # x0, y0, x1, y1 normalised to 0-1000 (mineru 2.2+)
    text: str
    text_level: int  # a title's level, 1 = top
    content: str  # an image's or chart's recognised text (VLM backends)
    img_path: str  # relative to the content list's folder
    image_caption: list[str]
    image_footnote: list[str]
    img_caption: list[str]  # magic-pdf 0.x-1.x and mineru 2.0 name image_caption so
    img_footnote: list[str]
    chart_caption: list[str]
    chart_footnote: list[str]
    seal_caption: list[str]
    seal_footnote: list[str]
    table_caption: list[str]
    table_footnote: list[str]
    table_body: str  # HTML (magic-pdf: sometimes LaTeX)
    list_items: list[str]
    code_caption: list[str]
    code_body: str
    code_footnote: list[str]


class MiddleSpan(TypedDict, total=False):
    """A span of a middle.json line: a run of text (or an equation, an image ...) with its ``content``."""

    content: str


class MiddleLine(TypedDict, total=False):
    """A line of a middle.json block: its spans."""

    spans: list[MiddleSpan]


class MiddleBlock(TypedDict, total=False):
    """A block of middle.json (a para_block, or one nested in it): its type, box in PDF points, lines, blocks."""

    type: str
    bbox: list[float]
    lines: list[MiddleLine]
    blocks: list[MiddleBlock]  # an image's or table's body, caption and footnote


class MiddlePage(TypedDict, total=False):
    """A page of middle.json's ``pdf_info``: its index, size in PDF points and para_blocks in reading order."""

    page_idx: int  # 0-based
    page_size: list[float]  # width, height
    para_blocks: list[MiddleBlock]
