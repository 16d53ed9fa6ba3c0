"""Table rows and the titles of tables, from the tree's text.

    table_rows("| Year | Sales |\n|---|---|\n| 2017 | 177,866 |")   # ["Year: 2017 | Sales: 177,866"]
    lead_in(blocks, 5)   # "Consolidated Statement of Cash Flows (in millions)": the short texts just above table 5

A row's text repeats the header ("header + row"), so that a row found alone still says what its numbers are; its
heading names the table (caption, else lead-in), so that it also says which table the numbers are from.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .passages import LayoutBlock

_SEPARATOR = re.compile(r"^\|?\s*:?-{2,}")
MAX_ROW_CHARS = 1000
LEAD_IN_BLOCKS = 4  # short texts read back from a table
LEAD_IN_WORDS = 30  # a longer text is a paragraph, not a title or an introduction ("... as follows:")
LEAD_IN_CHARS = 160
_WORD = re.compile(r"[^\W\d_]{2}")



def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def table_rows(markdown: str) -> list[str]:
    """The body rows of a Markdown table, each as ``header: value`` pairs (``value`` alone under an empty
    header); the header row itself is not a row."""
    lines = [line for line in markdown.splitlines() if line.strip().startswith("|")]
    if not lines:
        return []
    header, body = _cells(lines[0]), [line for line in lines[1:] if not _SEPARATOR.match(line.strip())]
    rows = []
    for line in body:
        cells = _cells(line)
        if not any(cells):
            continue
        pairs = [f"{h}: {c}" if h else c for h, c in zip(header + [""] * len(cells), cells, strict=False) if c]
        rows.append(" | ".join(pairs)[:MAX_ROW_CHARS])
    return rows


def lead_in(blocks: Sequence[LayoutBlock], index: int) -> str:
    """What introduces the table ``blocks[index]`` where it has no caption: the short texts just above it on its
    page and in its section (at most 4, in reading order; those without a word, such as column years, skipped),
    e.g. a statement's title ("Consolidated Statement of Cash Flows") or an introduction ("Share repurchases were
    as follows:"). Reading back stops at another kind of block, a page or section change, or a paragraph: over 30
    words, or over 12 ending in a full stop. Empty when there is none."""
    table, found = blocks[index], []
    for block in reversed(blocks[max(0, index - LEAD_IN_BLOCKS):index]):
        words = len(block.text.split())
        if (block.kind != "text" or block.section != table.section or block.page_start != table.page_start
                or words > LEAD_IN_WORDS or (words > 12 and block.text.rstrip().endswith("."))):
            break
        if _WORD.search(block.text):
            found.append(" ".join(block.text.split()))
    return " ".join(reversed(found))[:LEAD_IN_CHARS]
