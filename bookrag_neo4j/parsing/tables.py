"""Tables: PyMuPDF's table finder on one page, and rendering of cells to Markdown, HTML and a plain-text
linearisation (what embedders and rerankers read).

The finder runs with the exact speed-ups of :mod:`.finder_speed`: the same tables and regions, less CPU."""

from __future__ import annotations

import html
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import pymupdf

from .blocks import Block
from .finder_speed import fast_finder

log = logging.getLogger(__name__)

TableMode = Literal["regions", "lines", "off"]


def clean_cells(rows: Sequence[Sequence[str | None]]) -> list[list[str]]:
    """Strip cells, drop empty rows and columns, pad rows to one width."""
    cells = [[" ".join((c or "").split()) for c in row] for row in rows]
    cells = [row for row in cells if any(row)]
    if not cells:
        return []
    width = max(len(row) for row in cells)
    cells = [row + [""] * (width - len(row)) for row in cells]
    keep = [j for j in range(width) if any(row[j] for row in cells)]
    return [[row[j] for j in keep] for row in cells]


def to_markdown(cells: list[list[str]]) -> str:
    if not cells:
        return ""
    esc = [[c.replace("|", "\\|") for c in row] for row in cells]
    lines = ["| " + " | ".join(esc[0]) + " |", "| " + " | ".join("---" for _ in esc[0]) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in esc[1:]]
    return "\n".join(lines)


def to_html(cells: list[list[str]]) -> str:
    if not cells:
        return ""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in cells[0])
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in cells[1:])
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def linearise(cells: list[list[str]], caption: str = "") -> str:
    rows = [" | ".join(c for c in row if c) for row in cells]
    return "\n".join([caption, *rows] if caption else rows).strip()


def set_table(block: Block, cells: list[list[str]]) -> Block:
    """Fill a table block's renderings from its cells."""
    block.cells = cells
    block.table_rows = len(cells)
    block.table_cols = len(cells[0]) if cells else 0
    block.table_markdown = to_markdown(cells)
    block.table_html = to_html(cells)
    block.text = linearise(cells, block.caption)
    return block


Region = tuple[float, float, float, float, str]  # a region of the region model: x0, y0, x1, y1, class


@dataclass
class PageTables:
    """What the table finder found on a page: its tables, and the region model's regions where it ran."""

    tables: list[Block]
    regions: list[Region] | None = None


def regions_left(page: pymupdf.Page) -> list[Region]:
    """The region model's regions left on a page by ``find_tables(use_layout=True)`` or ``get_layout()``."""
    found: list[Any] = page.layout_information or []
    return [(float(r[0]), float(r[1]), float(r[2]), float(r[3]), str(r[4])) for r in found]


def find_on_page(page: pymupdf.Page, number: int, mode: TableMode) -> PageTables:
    """:func:`page_tables`, with the region model's regions in ``regions`` mode."""
    with fast_finder():
        tables = page_tables(page, number, mode)
    return PageTables(tables, regions_left(page) if mode == "regions" else None)


def page_tables(page: pymupdf.Page, number: int, mode: TableMode) -> list[Block]:
    """The tables PyMuPDF finds on a page (``mode`` layout or lines), as table blocks; noise (one row or column,
    mostly empty cells) is dropped. In ``regions`` mode the region model's regions stay on the page
    (``page.layout_information``)."""
    try:
        tables = page.find_tables(use_layout=mode == "regions").tables
    except Exception as exc:  # a damaged page must not stop the document
        log.warning("table detection failed on page %d: %s", number, exc)
        return []
    out = []
    words = page.get_text("words") if tables else []
    for table in tables:
        cells = clean_cells(_cell_texts(table, words))
        filled = sum(bool(c) for row in cells for c in row)
        if len(cells) < 2 or not cells[0] or len(cells[0]) < 2 or filled < 0.4 * len(cells) * len(cells[0]):
            continue
        out.append(set_table(Block(kind="table", text="", page=number, bbox=tuple(table.bbox)), cells))
    return out


def _cell_texts(table: Any, words: list[tuple]) -> list[list[str]]:
    """Cell text from the page's words (which carry the spaces PyMuPDF synthesises between them): each word
    goes to the cell holding its centre. ``Table.extract()`` glues words in PDFs without space characters."""
    x0, y0, x1, y1 = table.bbox
    inside = [w for w in words if x0 <= (w[0] + w[2]) / 2 <= x1 and y0 <= (w[1] + w[3]) / 2 <= y1]
    rows = table.rows  # a property that rebuilds the rows from the cells at each use
    grid: list[list[list[tuple]]] = [[[] for _ in row.cells] for row in rows]
    for w in inside:
        cx, cy = (w[0] + w[2]) / 2, (w[1] + w[3]) / 2
        for r, row in enumerate(rows):
            if row.bbox[1] - 1 <= cy <= row.bbox[3] + 1:
                for c, cell in enumerate(row.cells):
                    if cell and cell[0] - 1 <= cx <= cell[2] + 1:
                        grid[r][c].append(w)
                        break
                break
    return [[" ".join(w[4] for w in sorted(cell, key=lambda w: (round(w[1]), w[0]))) for cell in row] for row in grid]
