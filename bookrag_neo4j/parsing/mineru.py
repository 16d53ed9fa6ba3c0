# Format sources (MinerU's output folder, as this adapter reads it):
#
# * opendatalab/MinerU, docs/en/reference/output_files.md (published as
#   https://opendatalab.github.io/MinerU/reference/output_files/): the ``*_content_list.json`` and
#   ``*_middle.json`` layouts. Its 2.5-era revision documents the pipeline content list with ``bbox`` normalised
#   to 0-1000, ``image_caption``/``image_footnote``, ``table_body`` HTML, equations as ``text`` + ``text_format:
#   "latex"``, and the VLM-backend extensions (``list`` with ``list_items``, ``code`` with ``code_body``,
#   discarded ``header``/``footer``/``page_number``/``aside_text``/``page_footnote`` items). An older revision of
#   the same page (no ``bbox``) shows ``img_caption``/``img_footnote`` instead.
# * opendatalab/MinerU, docs/en/reference/changelog.md: 2.2.0 added ``bbox`` (0-1000) to the content list; 2.5.x
#   changed middle.json/content_list.json for the new VLM layout types; 2.0.0 renamed ``magic-pdf`` to ``mineru``.
# * opendatalab/MinerU, mineru/backend/vlm/vlm_middle_json_mkcontent.py and
#   mineru/backend/pipeline/pipeline_middle_json_mkcontent.py (2.x-4.0 alpha): how each para_block becomes a
#   content-list item, ``bbox = int(x * 1000 / page_width)`` etc., para_blocks then discarded_blocks per page.
# * opendatalab/MinerU, magic_pdf/dict2md/ocr_mkcontent.py (magic-pdf 0.x-1.x): the older item shapes
#   (``img_caption``, no ``bbox``, title levels capped at 4).
#
# Versions handled: magic-pdf 0.9-1.3 and mineru 2.0-2.1 (no ``bbox``; boxes come from middle.json), mineru 2.2+
# (``bbox`` 0-1000), mineru 2.5+/2.7 VLM/hybrid extras (list, code, chart, seal, discarded page furniture).
# MinerU 4.0 replaces these files with a new schema; ``*_content_list_v2.json`` is not read.
"""Read a MinerU output folder into our parser output (:class:`~bookrag_neo4j.parsing.blocks.ParsedDocument`).

MinerU (``mineru -p report.pdf -o out``) writes ``out/report/<method>/report_content_list.json`` (the content
blocks in reading order), ``report_middle.json`` (pages, sizes and blocks with boxes in PDF points) and
``images/``. This adapter needs the content list; with middle.json it also knows page sizes and exact boxes::

    from pathlib import Path

    from bookrag_neo4j.parsing.mineru import load_mineru_output

    doc = load_mineru_output(Path("out/report"))
    print(doc.title, doc.page_count, len(doc.blocks))
    for block in doc.blocks:
        print(block.page, block.kind, block.heading_level, block.bbox, block.text[:60])

Titles keep MinerU's ``text_level`` as ``heading_level``; page headers, footers and page numbers are dropped;
tables carry the HTML, a Markdown rendering and their size; images carry an absolute ``image_path``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from ..errors import DocumentError
from ..keys import file_key, key_prefix
from .blocks import BBox, Block, BlockKind, ParsedDocument
from .tables import to_markdown

log = logging.getLogger(__name__)

CONTENT_LIST_SUFFIX = "_content_list.json"
MIDDLE_SUFFIX = "_middle.json"

#: Content-list types that are page furniture, not content (VLM/hybrid 2.5+ write them; some builds "discarded").
DROPPED_TYPES = frozenset({"header", "footer", "page_number", "aside_text", "page_footnote", "discarded"})

#: middle.json para_block type -> the family used to match it with a content-list item.
_MIDDLE_FAMILY = {
    "text": "text",
    "title": "text",
    "list": "text",
    "index": "text",
    "abstract": "text",
    "ref_text": "text",
    "phonetic": "text",
    "code": "text",
    "interline_equation": "equation",
    "image": "image",
    "chart": "image",
    "seal": "image",
    "table": "table",
}

_DEFAULT_BBOX: BBox = (0.0, 0.0, 0.0, 0.0)
_MATCH_THRESHOLD = 0.5
_WORD = re.compile(r"\w+")


# --------------------------------------------------------------------------------------------------- public API


def load_mineru_output(directory: Path) -> ParsedDocument:
    """Build a :class:`ParsedDocument` from a MinerU output folder (searched recursively).

    Raises :class:`DocumentError` when the folder is missing, holds no or several ``*_content_list.json``, or a
    JSON file is empty, broken or not shaped like MinerU's output.
    """
    directory = Path(directory)
    if not directory.exists():
        raise DocumentError(f"MinerU output folder {directory} does not exist")
    if not directory.is_dir():
        raise DocumentError(f"{directory} is not a folder (expected MinerU's output folder)")

    content_path = _find_content_list(directory)
    raw = content_path.read_bytes()
    items = _load_json(content_path, raw)
    if not isinstance(items, list):
        raise DocumentError(f"{content_path.name}: expected a JSON list of content items, got {type(items).__name__}")
    if not items:
        raise DocumentError(f"{content_path.name}: the content list is empty")

    warnings: list[str] = []
    middle_path = content_path.with_name(content_path.name[: -len(CONTENT_LIST_SUFFIX)] + MIDDLE_SUFFIX)
    pages: dict[int, _Page] = {}
    if middle_path.is_file():
        pages = _read_middle(middle_path)
    else:
        log.info("no %s next to %s: boxes only from the content list", middle_path.name, content_path.name)
    page_sizes = {number: page.size for number, page in pages.items() if page.size is not None}

    builder = _Builder(content_path.parent, pages, warnings)
    max_page = max(pages, default=0)
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise DocumentError(f"{content_path.name}: item {index} is a {type(item).__name__}, not an object")
        page = _page_number(item, index, content_path.name)
        max_page = max(max_page, page)
        builder.add(item, page)
    builder.finish()

    if not builder.blocks:
        raise DocumentError(f"{content_path.name}: no content blocks (only page headers, footers or empty items)")

    title = next(
        (b.text for b in builder.blocks if b.kind == "title" and b.heading_level == 1 and b.text),
        directory.resolve().name,
    )
    for warning in warnings:
        log.warning("%s: %s", content_path.name, warning)
    log.info(
        "read MinerU output %s: %d blocks on %d pages (%s)",
        content_path,
        len(builder.blocks),
        max_page,
        "with middle.json" if pages else "without middle.json",
    )
    return ParsedDocument(
        path=content_path.resolve(),
        content_hash=hashlib.sha256(raw).hexdigest(),
        title=title,
        page_count=max_page,
        blocks=builder.blocks,
        outline=[],
        page_sizes=page_sizes,
        parser="mineru",
        warnings=warnings,
    )


# --------------------------------------------------------------------------------------------------- files


def _find_content_list(directory: Path) -> Path:
    found = sorted(p for p in directory.rglob(f"*{CONTENT_LIST_SUFFIX}") if p.is_file())
    if not found:
        raise DocumentError(f"no *{CONTENT_LIST_SUFFIX} under {directory}: is this a MinerU output folder?")
    if len(found) > 1:
        listed = ", ".join(str(p.relative_to(directory)) for p in found)
        raise DocumentError(
            f"{len(found)} *{CONTENT_LIST_SUFFIX} files under {directory} ({listed}); pass the folder of one document"
        )
    return found[0]


def _load_json(path: Path, raw: bytes) -> Any:
    if not raw.strip():
        raise DocumentError(f"{path.name}: the file is empty")
    try:
        return json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise DocumentError(f"{path.name}: not UTF-8 text ({exc})") from exc
    except json.JSONDecodeError as exc:
        raise DocumentError(f"{path.name}: broken JSON ({exc})") from exc


def _page_number(item: dict[str, Any], index: int, name: str) -> int:
    page_idx = item.get("page_idx")
    if isinstance(page_idx, bool) or not isinstance(page_idx, int) or page_idx < 0:
        raise DocumentError(f"{name}: item {index} has no valid page_idx ({page_idx!r})")
    return page_idx + 1


# --------------------------------------------------------------------------------------------------- middle.json


@dataclass
class _Candidate:
    """A first-level para_block of middle.json that a content-list item may correspond to."""

    block_type: str
    family: str
    bbox: BBox | None
    tokens: frozenset[str]
    lines: int
    used: bool = False


@dataclass
class _Page:
    size: tuple[float, float] | None
    candidates: list[_Candidate] = field(default_factory=list)
    cursor: int = 0


def _read_middle(path: Path) -> dict[int, _Page]:
    data = _load_json(path, path.read_bytes())
    pdf_info = data.get("pdf_info") if isinstance(data, dict) else None
    if not isinstance(pdf_info, list):
        raise DocumentError(f"{path.name}: expected an object with a 'pdf_info' list of pages")
    pages: dict[int, _Page] = {}
    for position, info in enumerate(pdf_info):
        if not isinstance(info, dict):
            raise DocumentError(f"{path.name}: pdf_info[{position}] is not an object")
        page_idx = info.get("page_idx", position)
        if isinstance(page_idx, bool) or not isinstance(page_idx, int) or page_idx < 0:
            raise DocumentError(f"{path.name}: pdf_info[{position}] has no valid page_idx ({page_idx!r})")
        page = _Page(size=_page_size(info.get("page_size")))
        for block in info.get("para_blocks") or []:
            if not isinstance(block, dict):
                continue
            block_type = str(block.get("type", ""))
            family = _MIDDLE_FAMILY.get(block_type)
            if family is None:
                continue
            page.candidates.append(
                _Candidate(
                    block_type=block_type,
                    family=family,
                    bbox=_bbox(block.get("bbox")),
                    tokens=_tokens(" ".join(_span_texts(block))),
                    lines=_count_lines(block),
                )
            )
        pages[page_idx + 1] = page
    return pages


def _page_size(value: Any) -> tuple[float, float] | None:
    if isinstance(value, list | tuple) and len(value) == 2 and all(_is_number(v) for v in value):
        width, height = float(value[0]), float(value[1])
        if width > 0 and height > 0:
            return (width, height)
    return None


def _span_texts(block: dict[str, Any]) -> Iterable[str]:
    for line in block.get("lines") or []:
        for span in (line or {}).get("spans") or []:
            content = (span or {}).get("content")
            if isinstance(content, str) and content:
                yield content
    for child in block.get("blocks") or []:
        if isinstance(child, dict):
            yield from _span_texts(child)


def _count_lines(block: dict[str, Any]) -> int:
    count = len(block.get("lines") or [])
    for child in block.get("blocks") or []:
        if isinstance(child, dict):
            count += _count_lines(child)
    return count


# --------------------------------------------------------------------------------------------------- building


class _Builder:
    def __init__(self, base: Path, pages: dict[int, _Page], warnings: list[str]) -> None:
        self.base = base
        self.pages = pages
        self.warnings = warnings
        self.blocks: list[Block] = []
        self.dropped = 0
        self.empty = 0
        self.without_box = 0
        self.unnormalised = 0
        self.unknown: dict[str, int] = {}
        self.missing_images: list[str] = []

    # One content-list item -> zero or one Block.
    def add(self, item: dict[str, Any], page: int) -> None:
        item_type = str(item.get("type", ""))
        if item_type in DROPPED_TYPES:
            self.dropped += 1
            return
        built = self._convert(item, item_type)
        if built is None:
            return
        kind, fields, family, match_text = built
        candidate = self._match(page, family, match_text)
        if candidate is not None and kind == "text" and candidate.block_type == "list":
            kind = "list"
        block = Block(kind=kind, page=page, bbox=self._bbox(item, page, candidate), **fields)
        if candidate is not None and family == "text" and candidate.lines:
            block.lines = candidate.lines
        self.blocks.append(block)

    def _convert(self, item: dict[str, Any], item_type: str) -> tuple[BlockKind, dict[str, Any], str, str] | None:
        """(kind, Block fields, match family, text to match against middle.json) or None to skip the item."""
        if item_type == "text" or item_type in ("ref_text", "phonetic"):
            text = _clean(item.get("text"))
            if not text:
                self.empty += 1
                return None
            level = _int_or_none(item.get("text_level"))
            if level is not None and level >= 1:
                return "title", {"text": text, "heading_level": level}, "text", text
            return "text", {"text": text}, "text", text
        if item_type == "list":
            entries = [_clean(e) for e in _strings(item.get("list_items"))]
            text = "\n".join(e for e in entries if e) or _clean(item.get("text"))
            if not text:
                self.empty += 1
                return None
            return "list", {"text": text}, "text", text
        if item_type == "equation":
            text = _strip_math_delimiters(_clean(item.get("text")))
            image_path = self._image_path(item)
            if not text and not image_path:
                self.empty += 1
                return None
            # Without LaTeX (formula recognition off) the pipeline still writes the crop: keep it as the block.
            return "equation", {"text": text, "image_path": image_path}, "equation", text
        if item_type in ("image", "chart", "seal"):
            captions, footnotes = item.get(f"{item_type}_caption"), item.get(f"{item_type}_footnote")
            if item_type == "image" and captions is None and footnotes is None:
                captions, footnotes = item.get("img_caption"), item.get("img_footnote")  # magic-pdf 0.x-1.x, mineru 2.0
            caption = _join(captions)
            footnote = _join(footnotes, sep="\n")
            parts = [caption, footnote, _clean(item.get("content")), _clean(item.get("text"))]
            text = "\n".join(p for p in parts if p)
            fields = {"text": text, "caption": caption, "image_path": self._image_path(item)}
            return "image", fields, "image", f"{caption} {footnote}"
        if item_type == "table":
            # middle.json keeps the cells in the span's "html", not in "content": match on caption and footnote
            match_text = f"{_join(item.get('table_caption'))} {_join(item.get('table_footnote'))}"
            return "table", self._table(item), "table", match_text
        if item_type == "code":
            caption = _join(item.get("code_caption"))
            body = _clean(item.get("code_body"))
            text = "\n".join(p for p in (caption, body, _join(item.get("code_footnote"), sep="\n")) if p)
            if not text:
                self.empty += 1
                return None
            return "text", {"text": text, "caption": caption}, "text", text
        self.unknown[item_type] = self.unknown.get(item_type, 0) + 1
        text = _clean(item.get("text"))
        if not text:
            return None
        return "text", {"text": text}, "text", text

    def _table(self, item: dict[str, Any]) -> dict[str, Any]:
        caption = _join(item.get("table_caption"))
        footnote = _join(item.get("table_footnote"), sep="\n")
        body = item.get("table_body") if isinstance(item.get("table_body"), str) else ""
        fields: dict[str, Any] = {"caption": caption, "image_path": self._image_path(item)}
        rows = html_table_to_rows(body) if "<table" in body.lower() else []
        if rows:
            fields.update(
                cells=rows,
                table_html=body,
                table_markdown=to_markdown(rows),
                table_rows=len(rows),
                table_cols=len(rows[0]),
            )
            rendered = "\n".join(" | ".join(row) for row in rows)
        else:
            # No HTML: table recognition was off (only the crop in img_path), or magic-pdf wrote LaTeX.
            rendered = body.strip()
        fields["text"] = "\n".join(p for p in (caption, rendered, footnote) if p)
        return fields

    def _image_path(self, item: dict[str, Any]) -> str:
        img_path = item.get("img_path")
        if not isinstance(img_path, str) or not img_path.strip():
            return ""
        path = (self.base / img_path.strip()).resolve()
        if not path.is_file():
            self.missing_images.append(img_path)
        return str(path)

    # ----------------------------------------------------------------------------------------- boxes

    def _match(self, page: int, family: str, text: str) -> _Candidate | None:
        """The para_block of the same page and family that this item came from: by text overlap, else in order."""
        info = self.pages.get(page)
        if info is None:
            return None
        tokens = _tokens(text)
        order = list(range(info.cursor, len(info.candidates))) + list(range(info.cursor))
        best: tuple[float, int] | None = None
        for position in order:
            candidate = info.candidates[position]
            if candidate.used or candidate.family != family:
                continue
            if tokens and candidate.tokens:
                # Paragraphs must share most of their words both ways (a short title inside a long paragraph is no
                # match); captions and LaTeX only need to be contained in the other side.
                bound = max if family == "text" else min
                score = len(tokens & candidate.tokens) / bound(len(tokens), len(candidate.tokens))
                if score < _MATCH_THRESHOLD:
                    continue
            elif family == "text" and (tokens or candidate.tokens):
                continue  # one side has words, the other none: not the same paragraph
            else:
                score = _MATCH_THRESHOLD  # images/tables/equations without text: the next one in order
            if best is None or score > best[0]:
                best = (score, position)
            if score >= 1.0:
                break
        if best is None:
            return None
        candidate = info.candidates[best[1]]
        candidate.used = True
        info.cursor = best[1] + 1
        return candidate

    def _bbox(self, item: dict[str, Any], page: int, candidate: _Candidate | None) -> BBox:
        own = _bbox(item.get("bbox"))
        info = self.pages.get(page)
        size = info.size if info is not None else None
        if own is not None:
            if size is None:
                self.unnormalised += 1
                return own
            width, height = size
            converted = (own[0] * width / 1000, own[1] * height / 1000, own[2] * width / 1000, own[3] * height / 1000)
            if candidate is not None and candidate.bbox is not None and _same_box(own, candidate.bbox, size):
                return candidate.bbox  # the same box, unrounded (MinerU truncates to whole thousandths)
            return converted
        if candidate is not None and candidate.bbox is not None:
            return candidate.bbox
        self.without_box += 1
        return _DEFAULT_BBOX

    def finish(self) -> None:
        if self.dropped:
            log.debug("dropped %d page header/footer/number items", self.dropped)
        if self.empty:
            log.debug("skipped %d empty items", self.empty)
        if self.unnormalised:
            self.warnings.append(
                f"{self.unnormalised} boxes are MinerU's 0-1000 page-normalised coordinates, not PDF points: "
                "no middle.json page sizes to convert them"
            )
        if self.without_box:
            self.warnings.append(f"{self.without_box} blocks have no bounding box (no bbox and no middle.json match)")
        for item_type, count in sorted(self.unknown.items()):
            self.warnings.append(f"{count} items of unknown type {item_type!r} read as text (or skipped if empty)")
        if self.missing_images:
            shown = ", ".join(self.missing_images[:3]) + (" ..." if len(self.missing_images) > 3 else "")
            self.warnings.append(f"{len(self.missing_images)} referenced image files are missing: {shown}")


# --------------------------------------------------------------------------------------------------- helpers


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _bbox(value: Any) -> BBox | None:
    if isinstance(value, list | tuple) and len(value) == 4 and all(_is_number(v) for v in value):
        x0, y0, x1, y1 = (float(v) for v in value)
        return (x0, y0, x1, y1)
    return None


def _same_box(normalised: BBox, points: BBox, size: tuple[float, float]) -> bool:
    width, height = size
    scales = (width, height, width, height)
    return all(abs(n - p * 1000 / s) <= 1.5 for n, p, s in zip(normalised, points, scales, strict=True))


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


def _tokens(text: str) -> frozenset[str]:
    # NFKC: middle.json spans keep the PDF's ligatures ("\ufb02ow") where the content list has "flow".
    return frozenset(_WORD.findall(unicodedata.normalize("NFKC", text).lower()))


def _strip_math_delimiters(text: str) -> str:
    """``$$\\nE = mc^2\\n$$`` -> ``E = mc^2`` (MinerU wraps display LaTeX in Markdown delimiters)."""
    for left, right in (("$$", "$$"), ("\\[", "\\]"), ("$", "$")):
        if len(text) > len(left) + len(right) and text.startswith(left) and text.endswith(right):
            return text[len(left) : -len(right)].strip()
    return text


# --------------------------------------------------------------------------------------------------- tables


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
            return
        if self._depth != 1:
            if tag == "br" and self._cell is not None:
                self._cell.append(" ")
            return
        if tag == "tr":
            self._close_row()
            self._row = []
        elif tag in ("td", "th"):
            self._close_cell()
            if self._row is None:
                self._row = []
            values = dict(attrs)
            self._span = (_span_attr(values.get("rowspan")), _span_attr(values.get("colspan")))
            self._cell = []
        elif tag == "br" and self._cell is not None:
            self._cell.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if self._done:
            return
        if tag == "table":
            self._depth -= 1
            if self._depth == 0:
                self._close_row()
                self._done = True
            return
        if self._depth != 1:
            return
        if tag in ("td", "th"):
            self._close_cell()
        elif tag == "tr":
            self._close_row()

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)

    def _close_cell(self) -> None:
        if self._cell is not None and self._row is not None:
            text = " ".join("".join(self._cell).split())
            self._row.append((text, *self._span))
        self._cell = None

    def flush(self) -> None:
        """Keep a row left open by HTML that ends without closing its tags."""
        if not self._done:
            self._close_row()

    def _close_row(self) -> None:
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
        while len(grid) <= r:
            grid.append([])
        c = 0
        for text, rowspan, colspan in row:
            while c < len(grid[r]) and grid[r][c] is not None:
                c += 1
            for dr in range(rowspan):
                while len(grid) <= r + dr:
                    grid.append([])
                target = grid[r + dr]
                while len(target) < c + colspan:
                    target.append(None)
                for dc in range(colspan):
                    target[c + dc] = text
            c += colspan
    grid = [row for row in grid if row]
    if not grid:
        return []
    width = max(len(row) for row in grid)
    return [[cell or "" for cell in row] + [""] * (width - len(row)) for row in grid]


def run_mineru(pdf: Path, out_root: Path) -> Path:
    """Run MinerU's own CLI on a PDF (where the ``mineru`` package and its models are installed) and return
    its output folder for :func:`load_mineru_output`. Reuses an earlier run of the same file."""
    import shutil
    import subprocess

    mineru = shutil.which("mineru")
    if mineru is None:
        raise DocumentError(
            "MinerU is not installed: pip install 'bookrag-neo4j[mineru]' and download its models, or run MinerU "
            "elsewhere and index its output with --mineru-output DIR"
        )
    out = out_root / key_prefix(file_key(pdf))
    if any(out.rglob("*_content_list.json")):
        return out
    proc = subprocess.run([mineru, "-p", str(pdf), "-o", str(out), "-b", "pipeline"], capture_output=True, text=True,
                          check=False)
    if proc.returncode != 0:
        raise DocumentError(f"MinerU failed on {pdf.name} (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}")
    return out
