"""Refinement after parsing: drop OCR garbage, fix hyphenation, stitch paragraphs broken across columns or
pages, merge tables continued on the next page."""

from __future__ import annotations

import re

from .blocks import Block
from .tables import set_table

_TERMINAL = tuple('.!?:;"”’)]')
_HYPHEN = re.compile(r"(\w)-\s*\n\s*([a-z])")


def dehyphenate(text: str) -> str:
    """Join words split at line ends ('exam-\\nple' -> 'example') and lines into one paragraph."""
    return " ".join(_HYPHEN.sub(r"\1\2", text).split())


def is_garbage(block: Block) -> bool:
    """OCR or extraction garbage: long blocks that are mostly not letters or digits, or replacement characters."""
    text = block.text
    if block.kind not in ("text", "list", "title") or len(text) < 20:
        return False
    visible = [c for c in text if not c.isspace()]
    alnum = sum(c.isalnum() for c in visible) / max(len(visible), 1)
    return alnum < 0.4 or text.count("\ufffd") > 0.1 * len(visible)


def refine(blocks: list[Block]) -> list[Block]:
    out: list[Block] = []
    for block in blocks:
        if is_garbage(block):
            continue
        prev = out[-1] if out else None
        if prev is not None and _continues_heading(prev, block):
            prev.text = f"{prev.text} {block.text}"
            prev.bbox = (min(prev.bbox[0], block.bbox[0]), prev.bbox[1], max(prev.bbox[2], block.bbox[2]), block.bbox[3])
            prev.lines += block.lines
            continue
        if prev is not None and _continues_paragraph(prev, block):
            prev.text = dehyphenate(f"{prev.text}\n{block.text}")
            prev.page_end = block.page
            continue
        if prev is not None and _continues_table(prev, block):
            set_table(prev, prev.cells + block.cells[_repeated_header(prev, block):])
            prev.page_end = block.page
            continue
        out.append(block)
    return out


def _continues_heading(prev: Block, block: Block) -> bool:
    """A heading wrapped onto a second line: two title blocks in the same style, one right under the other."""
    gap = block.bbox[1] - prev.bbox[3]
    return (
        prev.kind == "title" and block.kind == "title" and prev.page == block.page and prev.bold == block.bold
        and abs(prev.font_size - block.font_size) < 0.5 and -1 <= gap <= 0.6 * max(prev.line_height, 1.0)
        and prev.lines + block.lines <= 3 and not prev.text.rstrip().endswith(_TERMINAL)
        and block.bbox[0] < prev.bbox[2] and prev.bbox[0] < block.bbox[2]
    )


def _continues_paragraph(prev: Block, block: Block) -> bool:
    """A text block that ends mid-sentence, followed on another page or column by one starting in lowercase."""
    if prev.kind != "text" or block.kind != "text" or not prev.text or not block.text:
        return False
    moved = block.page != (prev.page_end or prev.page) or abs(block.bbox[0] - prev.bbox[0]) > 100
    return moved and not prev.text.rstrip().endswith(_TERMINAL) and block.text.lstrip()[:1].islower()


def _continues_table(prev: Block, block: Block) -> bool:
    return (
        prev.kind == "table" and block.kind == "table" and not block.caption
        and block.page == (prev.page_end or prev.page) + 1 and block.table_cols == prev.table_cols > 0
    )


def _repeated_header(prev: Block, block: Block) -> int:
    return 1 if block.cells and prev.cells and block.cells[0] == prev.cells[0] else 0
