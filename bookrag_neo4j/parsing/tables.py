"""Table rendering: cells to Markdown, HTML and a plain-text linearisation (what embedders and rerankers read)."""

from __future__ import annotations

import html

from .blocks import Block


def clean_cells(rows: list[list[str | None]]) -> list[list[str]]:
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
