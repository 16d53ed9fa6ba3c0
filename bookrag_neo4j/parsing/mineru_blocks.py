"""Convert MinerU content-list items (``*_content_list.json``) into our :class:`~bookrag_neo4j.parsing.blocks.Block`.

    builder = BlockBuilder(Path("out/report/auto"), PageBoxes())  # base folder of the items' img_path
    builder.add({"type": "text", "text": "Introduction", "text_level": 1, "page_idx": 0}, page=1)
    warnings = builder.finish()                                   # builder.blocks: the Blocks
    html_table_to_rows("<table><tr><td colspan=2>a</td></tr><tr><td>b</td><td>c</td></tr></table>")
    # [['a', 'a'], ['b', 'c']]

:class:`BlockBuilder` takes the items one by one with their page, drops page furniture and empty items, and places each
block with :class:`.mineru_boxes.PageBoxes`. Titles keep MinerU's ``text_level`` as ``heading_level``; tables carry
HTML, Markdown and their size (:func:`html_table_to_rows` repeats spanned cells); images an absolute ``image_path``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, TypedDict, cast

from .blocks import Block, BlockKind
from .mineru_boxes import PageBoxes
from .mineru_shapes import ContentItem
from .tables import to_markdown

log = logging.getLogger(__name__)

#: Content-list types that are page furniture, not content (VLM/hybrid 2.5+ write them; some builds "discarded").
DROPPED_TYPES = frozenset({"header", "footer", "page_number", "aside_text", "page_footnote", "discarded"})

#: The content-list types read as such; any other type is read as text, with a warning.
_KNOWN_TYPES = frozenset({"text", "ref_text", "phonetic", "list", "equation", "image", "chart", "seal", "table", "code"})


class BlockFields(TypedDict, total=False):
    """The :class:`Block` fields that one content-list item sets, besides its kind, page and box."""

    text: str
    caption: str
    image_path: str
    heading_level: int
    cells: list[list[str]]
    table_html: str
    table_markdown: str
    table_rows: int
    table_cols: int


class BlockBuilder:
    """Collects the :class:`Block` of a document's content-list items, in order, in :attr:`blocks`."""

    def __init__(self, base: Path, boxes: PageBoxes) -> None:
        self.base = base
        self.boxes = boxes
        self.blocks: list[Block] = []
        self.dropped = 0
        self.empty = 0
        self.unknown: dict[str, int] = {}
        self.missing_images: list[str] = []

    def add(self, item: Mapping[str, object], page: int) -> None:
        """One content-list item (a parsed JSON object) -> zero or one Block."""
        entry = cast(ContentItem, item)  # its values are still checked where they are read
        item_type = str(entry.get("type", ""))
        if item_type in DROPPED_TYPES:
            self.dropped += 1
            return
        built = self._convert(entry, item_type)
        if built is None:
            if item_type in _KNOWN_TYPES:  # an unknown type is counted in self.unknown
                self.empty += 1
            return
        kind, fields, family, match_text = built
        candidate = self.boxes.match(page, family, match_text)
        if candidate is not None and kind == "text" and candidate.block_type == "list":
            kind = "list"
        block = Block(kind=kind, page=page, bbox=self.boxes.bbox(entry.get("bbox"), page, candidate), **fields)
        if candidate is not None and family == "text" and candidate.lines:
            block.lines = candidate.lines
        self.blocks.append(block)

    def _convert(self, item: ContentItem, item_type: str) -> tuple[BlockKind, BlockFields, str, str] | None:
        """(kind, Block fields, match family, text to match against middle.json) or None to skip an empty item."""
        if item_type in ("image", "chart", "seal"):
            if item_type == "image":
                captions, footnotes = item.get("image_caption"), item.get("image_footnote")
                if captions is None and footnotes is None:  # magic-pdf 0.x-1.x, mineru 2.0
                    captions, footnotes = item.get("img_caption"), item.get("img_footnote")
            elif item_type == "chart":
                captions, footnotes = item.get("chart_caption"), item.get("chart_footnote")
            else:
                captions, footnotes = item.get("seal_caption"), item.get("seal_footnote")
            caption = _join(captions)
            footnote = _join(footnotes, sep="\n")
            text = _lines(caption, footnote, _clean(item.get("content")), _clean(item.get("text")))
            fields: BlockFields = {"text": text, "caption": caption, "image_path": self._image_path(item)}
            return "image", fields, "image", f"{caption} {footnote}"
        if item_type == "table":
            # middle.json keeps the cells in the span's "html", not in "content": match on caption and footnote
            match_text = f"{_join(item.get('table_caption'))} {_join(item.get('table_footnote'))}"
            return "table", self._table(item), "table", match_text
        if item_type == "equation":
            text = _strip_math_delimiters(_clean(item.get("text")))
            image_path = self._image_path(item)
            if not text and not image_path:
                return None
            # Without LaTeX (formula recognition off) the pipeline still writes the crop: keep it as the block.
            return "equation", {"text": text, "image_path": image_path}, "equation", text
        fields = {}
        if item_type == "list":
            text = _lines(*(_clean(e) for e in _strings(item.get("list_items")))) or _clean(item.get("text"))
            kind: BlockKind = "list"
        elif item_type == "code":
            fields["caption"] = _join(item.get("code_caption"))
            text = _lines(fields["caption"], _clean(item.get("code_body")), _join(item.get("code_footnote"), sep="\n"))
            kind = "text"
        else:
            if item_type not in _KNOWN_TYPES:
                self.unknown[item_type] = self.unknown.get(item_type, 0) + 1
            text = _clean(item.get("text"))
            level = _int_or_none(item.get("text_level")) if item_type in ("text", "ref_text", "phonetic") else None
            if level is not None and level >= 1:
                kind, fields["heading_level"] = "title", level
            else:
                kind = "text"
        if not text:
            return None
        return kind, {"text": text, **fields}, "text", text

    def _table(self, item: ContentItem) -> BlockFields:
        caption = _join(item.get("table_caption"))
        raw = item.get("table_body")
        body = raw if isinstance(raw, str) else ""
        fields: BlockFields = {"caption": caption, "image_path": self._image_path(item)}
        rows = html_table_to_rows(body) if "<table" in body.lower() else []
        if rows:
            fields.update(
                {
                    "cells": rows,
                    "table_html": body,
                    "table_markdown": to_markdown(rows),
                    "table_rows": len(rows),
                    "table_cols": len(rows[0]),
                }
            )
            rendered = "\n".join(" | ".join(row) for row in rows)
        else:
            # No HTML: table recognition was off (only the crop in img_path), or magic-pdf wrote LaTeX.
            rendered = body.strip()
        fields["text"] = _lines(caption, rendered, _join(item.get("table_footnote"), sep="\n"))
        return fields

    def _image_path(self, item: ContentItem) -> str:
        img_path = item.get("img_path")
        if not isinstance(img_path, str) or not img_path.strip():
            return ""
        path = (self.base / img_path.strip()).resolve()
        if not path.is_file():
            self.missing_images.append(img_path)
        return str(path)

    def finish(self) -> list[str]:
        """Log what was skipped; return the warnings about the boxes, unknown types and missing images."""
        if self.dropped:
            log.debug("dropped %d page header/footer/number items", self.dropped)
        if self.empty:
            log.debug("skipped %d empty items", self.empty)
        warnings = self.boxes.warnings()
        for item_type, count in sorted(self.unknown.items()):
            warnings.append(f"{count} items of unknown type {item_type!r} read as text (or skipped if empty)")
        if self.missing_images:
            shown = ", ".join(self.missing_images[:3]) + (" ..." if len(self.missing_images) > 3 else "")
            warnings.append(f"{len(self.missing_images)} referenced image files are missing: {shown}")
        return warnings


def _int_or_none(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _clean(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _join(value: Any, sep: str = " ") -> str:
    return sep.join(s for s in (_clean(v) for v in _strings(value)) if s)


def _lines(*parts: str) -> str:
    return "\n".join(p for p in parts if p)


def _strip_math_delimiters(text: str) -> str:
    """``$$\\nE = mc^2\\n$$`` -> ``E = mc^2`` (MinerU wraps display LaTeX in Markdown delimiters)."""
    for left, right in (("$$", "$$"), ("\\[", "\\]"), ("$", "$")):
        if len(text) > len(left) + len(right) and text.startswith(left) and text.endswith(right):
            return text[len(left) : -len(right)].strip()
    return text


class _TableParser(HTMLParser):
    """Collects the rows of the first (outermost) table; nested tables' text goes into the enclosing cell."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[tuple[str, int, int]]] = []
        self._depth = 0
        self._done = False
        self._row: list[tuple[str, int, int]] | None = None
        self._cell: list[str] | None = None
        self._span = (1, 1)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._done:
            return
        if tag == "table":
            self._depth += 1
        elif tag == "br":
            if self._cell is not None:
                self._cell.append(" ")
        elif self._depth != 1:
            return
        elif tag == "tr":
            self.flush()
            self._row = []
        elif tag in ("td", "th"):
            self._close_cell()
            if self._row is None:
                self._row = []
            values = dict(attrs)
            self._span = (_span_attr(values.get("rowspan")), _span_attr(values.get("colspan")))
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if self._done:
            return
        if tag == "table":
            self._depth -= 1
            if self._depth == 0:
                self.flush()
                self._done = True
        elif self._depth != 1:
            return
        elif tag in ("td", "th"):
            self._close_cell()
        elif tag == "tr":
            self.flush()

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)

    def _close_cell(self) -> None:
        if self._cell is not None and self._row is not None:
            text = " ".join("".join(self._cell).split())
            self._row.append((text, *self._span))
        self._cell = None

    def flush(self) -> None:
        """Close the open row (also one left open by HTML that ends without closing its tags)."""
        if self._done:
            return
        self._close_cell()
        if self._row is not None:
            self.rows.append(self._row)
        self._row = None


def _span_attr(value: str | None) -> int:
    try:
        return max(1, min(int(str(value).strip()), 1000))
    except (TypeError, ValueError):
        return 1


def html_table_to_rows(html: str) -> list[list[str]]:
    """The first table of ``html`` as a rectangular grid; a rowspan/colspan cell's text repeats in every slot."""
    parser = _TableParser()
    parser.feed(html)
    parser.close()
    parser.flush()
    grid: list[list[str | None]] = []
    for r, row in enumerate(parser.rows):
        c = 0
        for text, rowspan, colspan in row:
            while len(grid) < r + rowspan:
                grid.append([])
            while c < len(grid[r]) and grid[r][c] is not None:
                c += 1
            for target in grid[r : r + rowspan]:
                target.extend([None] * (c + colspan - len(target)))
                target[c : c + colspan] = [text] * colspan
            c += colspan
    grid = [row for row in grid if row]
    if not grid:
        return []
    width = max(len(row) for row in grid)
    return [[cell or "" for cell in row] + [""] * (width - len(row)) for row in grid]
