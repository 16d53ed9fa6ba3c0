"""The parser's output: layout blocks in reading order, with pages, boxes and layout features.

Every parser (PyMuPDF, the MinerU adapter) produces a :class:`ParsedDocument`; the tree builder reads only
this, never a parser's own format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

BlockKind = Literal["title", "text", "list", "table", "image", "equation", "caption"]

BBox = tuple[float, float, float, float]  # x0, y0, x1, y1 in PDF points, origin top-left


@dataclass
class Block:
    """One layout block.

    ``page`` is 1-based. ``font_size``/``bold``/``italic``/``line_height`` are the layout features that section
    detection reads (the dominant span's; 0/False where the parser measures no fonts, as MinerU). ``heading_level`` is a
    parser's own level for a title (MinerU's ``text_level``), ``None`` when it has none: without a PDF outline
    it gives the sections (``bookrag_neo4j.tree.headings.from_parser``), and the LLM section filter reads it
    with ``bbox``. ``region_class`` is set by the heading detectors that run the region model
    (:mod:`bookrag_neo4j.tree.layout_model`).
    """

    kind: BlockKind
    text: str
    page: int
    bbox: BBox = (0.0, 0.0, 0.0, 0.0)
    page_end: int | None = None  # last page of a block stitched across pages
    font_size: float = 0.0
    bold: bool = False
    italic: bool = False
    line_height: float = 0.0
    lines: int = 1
    heading_level: int | None = None
    region_class: str = ""  # PyMuPDF's region model on the block's page ("section-header", "text" ...), "" if not run
    caption: str = ""
    table_markdown: str = ""
    table_html: str = ""
    table_rows: int = 0
    table_cols: int = 0
    cells: list[list[str]] = field(default_factory=list)  # table cells, row by row (header first)
    image_path: str = ""
    image_text: str = ""  # the words OCR read inside a figure (its caption apart)


@dataclass(frozen=True)
class OutlineEntry:
    """A bookmark of the PDF: its level (1 = top), title, 1-based page and vertical position (or ``None``)."""

    level: int
    title: str
    page: int
    y: float | None = None


@dataclass
class ParsedDocument:
    """A parsed document: metadata, the author's outline (may be empty), blocks in reading order."""

    path: Path
    content_hash: str  # SHA-256 of the file's bytes (of content_list.json for MinerU output)
    title: str
    page_count: int
    blocks: list[Block] = field(default_factory=list)
    outline: list[OutlineEntry] = field(default_factory=list)
    page_sizes: dict[int, tuple[float, float]] = field(default_factory=dict)
    parser: str = "pymupdf"
    warnings: list[str] = field(default_factory=list)
    region_skipped: list[int] = field(default_factory=list)  # pages too dense for the region model
