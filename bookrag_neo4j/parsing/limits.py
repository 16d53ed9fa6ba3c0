"""Bounds on what a PDF may make of the index: the outline is read without recursion and kept to
:data:`MAX_OUTLINE_DEPTH` levels, a text block longer than :data:`MAX_BLOCK_CHARS` is split into blocks at
paragraph, sentence or word boundaries (a page of one 95,000-character block made every lookup on it slow), the
region model skips a page of more than :data:`MAX_REGION_FRAGMENTS` text fragments (its cost grows faster than the
fragments), a page or figure is never rendered to more than :data:`MAX_RENDER_PIXELS` (a 12 KB PDF can declare a
page of 200 by 200 inches: at 150 dpi that is 900 million pixels), and a warning that would repeat for many pages is
one warning naming the pages (:func:`page_list`).

    outline, warnings = read_outline(doc)       # [OutlineEntry(level, title, page, y)], a warning if capped
    parsed = split_long_blocks(parsed)          # the same document, long text blocks split, one warning
    pages_warning([2, 3, 4, 5, 6, 7, 8], "is empty", "are empty")  # ['7 pages are empty (pages 2, 3, 4, 5, 6, ... 8)']
    zoom = render_zoom(rect.width, rect.height, dpi=150)   # pixels per point: 150 dpi, or less for a huge page
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import Any

import pymupdf

from .blocks import Block, OutlineEntry, ParsedDocument

MAX_OUTLINE_DEPTH = 32  # outline levels kept; deeper entries are dropped with a warning
MAX_BLOCK_CHARS = 4000  # longest text block; a longer one is split (every kind of text block: text, list, ...)
# Text fragments (lines) on a page above which the region model is not run there: its cost grows faster than the
# fragments (a minute and more for 10,000 on two cores); the densest pages of the dev benchmarks have under 450.
MAX_REGION_FRAGMENTS = 2000
# Pixels of one rendering (OCR, a figure's image file): a US Letter page at 150 dpi is 2.1 million, A3 4.4 million;
# a larger page is rendered at a lower resolution. The web app's page images keep the same cap.
MAX_RENDER_PIXELS = 8_000_000
SHOWN_PAGES = 5  # pages a summarised warning names before "..." and the last
MAX_SPLIT_WARNINGS = 3  # long blocks split with a warning each; more are one warning
SPLIT_KINDS = frozenset({"text", "list", "caption", "title", "equation"})
_BREAKS = (re.compile(r"\n\s*\n"), re.compile(r"(?<=[.!?;:])\s+"), re.compile(r"\s+"))


def render_zoom(width: float, height: float, dpi: float) -> float:
    """Pixels per point for rendering an area of ``width`` by ``height`` points at ``dpi``, lowered as far as the
    rendering needs to stay within :data:`MAX_RENDER_PIXELS`."""
    width, height = max(width, 1.0), max(height, 1.0)
    # the largest zoom whose pixels stay within the cap with a pixel more at each edge (a clip's edges round
    # outwards): (w z + 2)(h z + 2) <= MAX
    fits = (math.sqrt((width + height) ** 2 + width * height * (MAX_RENDER_PIXELS - 4)) - width - height) \
        / (width * height)
    return min(dpi / 72, fits)


def read_outline(doc: pymupdf.Document) -> tuple[list[OutlineEntry], list[str]]:
    """The document's outline (bookmarks) in order, as PyMuPDF's ``get_toc(simple=False)`` reads it but walked
    with a stack instead of recursion: an outline nested thousands deep is no ``RecursionError``. Entries deeper
    than :data:`MAX_OUTLINE_DEPTH` are dropped, with a warning."""
    entries: list[OutlineEntry] = []
    dropped = 0
    stack: list[tuple[Any, int]] = [(doc.outline, 1)]
    while stack:
        item, level = stack.pop()
        if not item or not item.this.m_internal:
            continue
        stack.append((item.next, level))  # the siblings after this entry's children
        if level > MAX_OUTLINE_DEPTH:
            dropped += 1 + _count(item.down)
            continue
        stack.append((item.down, level + 1))
        page = _page(doc, item)
        title = " ".join((item.title or "").split())
        if page >= 1 and title:
            entries.append(OutlineEntry(level, title, page, _top(doc, page, item)))
    warnings = [f"the outline nests deeper than {MAX_OUTLINE_DEPTH} levels: {dropped} deeper entries ignored"
                ] if dropped else []
    return entries, warnings


def _top(doc: pymupdf.Document, page: int, item: Any) -> float | None:
    """The vertical position a bookmark points at, from the top of its page (as block boxes are measured); the
    point of a named destination (LaTeX's hyperref, Texinfo) comes in PDF coordinates, from the bottom of the
    page's media box; PyMuPDF has already turned an explicit one. ``None`` when there is none or it points off
    the page."""
    link = pymupdf.utils.getLinkDict(item, doc) if page <= doc.page_count else {}
    point = link.get("to")
    if point is None or not point.y:
        return None
    top = (point * doc[page - 1].transformation_matrix).y if link.get("kind") == pymupdf.LINK_NAMED else point.y
    return top if 0.0 <= top <= doc[page - 1].rect.height else None


def _page(doc: pymupdf.Document, item: Any) -> int:
    """The 1-based page an outline entry points to, or -1 (external link, no target)."""
    if item.is_external or not item.uri:
        return -1
    return item.page + 1 if item.page != -1 else doc.resolve_link(item.uri)[0] + 1


def _count(item: Any) -> int:
    """Outline entries from ``item`` on: its siblings after it and all their descendants (without recursion)."""
    count, stack = 0, [item]
    while stack:
        item = stack.pop()
        if item and item.this.m_internal:
            count += 1
            stack += [item.next, item.down]
    return count


def split_long_blocks(parsed: ParsedDocument) -> ParsedDocument:
    """``parsed`` with each text block over :data:`MAX_BLOCK_CHARS` characters split into consecutive blocks
    of at most that many (same page, box and kind), and a warning for each block split (one for them all when
    more than :data:`MAX_SPLIT_WARNINGS` were)."""
    blocks: list[Block] = []
    split: list[str] = []
    pages: list[int] = []
    for block in parsed.blocks:
        if block.kind not in SPLIT_KINDS or len(block.text) <= MAX_BLOCK_CHARS:
            blocks.append(block)
            continue
        parts = split_text(block.text)
        split.append(f"page {block.page}: a {block.kind} block of {len(block.text):,} characters was split "
                     f"into {len(parts)} blocks of at most {MAX_BLOCK_CHARS:,}")
        pages.append(block.page)
        blocks += [replace(block, text=part) for part in parts]
    if len(blocks) == len(parsed.blocks):
        return parsed
    if len(split) > MAX_SPLIT_WARNINGS:
        split = [f"{len(split):,} blocks of over {MAX_BLOCK_CHARS:,} characters were split into blocks of at most "
                 f"{MAX_BLOCK_CHARS:,} ({page_list(sorted(set(pages)))})"]
    return replace(parsed, blocks=blocks, warnings=[*parsed.warnings, *split])


def page_list(pages: list[int]) -> str:
    """``pages 2, 3, 4, 5, 6, ... 20000``: the first :data:`SHOWN_PAGES` of sorted page numbers and the last one
    (``page 4`` for one)."""
    if len(pages) == 1:
        return f"page {pages[0]}"
    if len(pages) <= SHOWN_PAGES + 1:
        return "pages " + ", ".join(map(str, pages))
    return "pages " + ", ".join(map(str, pages[:SHOWN_PAGES])) + f", ... {pages[-1]}"


def pages_warning(pages: list[int], singular: str, plural: str, tail: str = "") -> list[str]:
    """One warning for something true of many pages: ``["page 4 is empty"]``, ``["3 pages are empty (pages 2, 4,
    9)"]``, or none without pages; ``tail`` follows (``": the region model is not run there"``)."""
    if not pages:
        return []
    if len(pages) == 1:
        return [f"page {pages[0]} {singular}{tail}"]
    return [f"{len(pages):,} pages {plural} ({page_list(sorted(pages))}){tail}"]


def split_text(text: str, limit: int = MAX_BLOCK_CHARS) -> list[str]:
    """``text`` in pieces of at most ``limit`` characters, each cut at the last paragraph break, else sentence
    end, else space, in the piece's second half (a hard cut only where there is none)."""
    parts: list[str] = []
    rest = text.strip()
    while len(rest) > limit:
        window = rest[: limit + 1]
        cut = next((m.start() for pattern in _BREAKS
                    for m in reversed(list(pattern.finditer(window, limit // 2))) if m.start() <= limit), limit)
        parts.append(rest[:cut].strip())
        rest = rest[cut:].strip()
    return [p for p in [*parts, rest] if p]
