"""The embedded default parser: PyMuPDF (offline, no models to download).

    parsed = parse_pdf(Path("report.pdf"), image_dir=Path("~/.local/share/bookrag-neo4j/images"))

Per page: text blocks with their fonts (split where the size, weight or slant of whole lines changes, so a heading
glued to its paragraph becomes its own block), raster images, tables (``find_tables``, ~0.35 CPU-s a page: only on
pages whose layout can hold a table, on worker processes, :mod:`.table_pool`), captions attached to their table or
figure (a "Figure N" caption without a raster image above it marks a vector figure), equations (math fonts), list
items, the PDF outline. Running headers, footers and page numbers are removed; reading order handles two-column pages.
A page of over ``MAX_REGION_FRAGMENTS`` lines skips the region model (its tables found by their rules): one warning."""

from __future__ import annotations

import hashlib
import logging
import re
import stat
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pymupdf

from ..errors import DocumentError
from ..keys import image_file_name, stored_name, stored_text
from . import ocr
from .blocks import Block, ParsedDocument
from .limits import MAX_REGION_FRAGMENTS, pages_warning, read_outline, render_zoom
from .page_rules import (
    BULLET,
    CAPTION,
    FIGURE_CAPTION,
    MATH_FONT,
    MIN_IMAGE_SIDE,
    PAGE_NUMBER,
    TABLE_CAPTION,
    body_font_size,
    is_title_candidate,
    reading_order,
    running_lines,
)
from .pdf_shapes import TextLine, TextPage, TextSpan
from .refine import dehyphenate, refine
from .regions import assign_classes
from .scan_regions import row_cells, scanned_tables
from .table_pool import table_finder
from .tables import TableMode, set_table

log = logging.getLogger(__name__)

_BOLD_FONT = re.compile(r"bold|black|heavy|semibold|demi|CMBX|CMB\d", re.IGNORECASE)
_ITALIC_FONT = re.compile(r"italic|oblique|CMTI|CMSL|-It\b|\bIt$", re.IGNORECASE)
CAPTION_GAP = 80.0  # points between a table/figure and its caption
IMAGE_DPI = 100  # a figure's image file (within MAX_RENDER_PIXELS)


def check_file(path: Path) -> None:
    """Raise ``DocumentError`` unless ``path`` is a regular file, saying what it is instead: missing, a folder, or
    a pipe, device or socket (reading ``/dev/zero`` or a FIFO would never end)."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise DocumentError(f"{stored_text(str(path))}: no such file") from None
    except OSError as exc:
        raise DocumentError(f"{stored_text(str(path))}: cannot read the file ({exc.strerror})") from exc
    if stat.S_ISDIR(mode):
        raise DocumentError(f"{stored_text(str(path))}: a folder, not a PDF file: give the PDFs in it")
    if not stat.S_ISREG(mode):
        kind = ("a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device")
        raise DocumentError(f"{stored_text(str(path))}: {kind}, not a file: save the PDF to a file first")


def open_pdf(path: Path) -> tuple[pymupdf.Document, str]:
    """Open a PDF, or raise ``DocumentError`` saying why it cannot be indexed: not a file (:func:`check_file`),
    unreadable, not a PDF (MuPDF would open an HTML page, an image or a gzipped PDF as something else), damaged,
    encrypted, or without pages."""
    name = stored_name(path)
    check_file(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DocumentError(f"{stored_text(str(path))}: cannot read the file ({exc.strerror})") from exc
    if b"%PDF-" not in data[:1024]:  # the header may follow up to 1 KiB of junk (PDF 32000-1, annex H)
        raise DocumentError(f"{name} is not a readable PDF (corrupt or not a PDF): it has no %PDF header")
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # PyMuPDF raises FileDataError / RuntimeError variants for damaged files
        raise DocumentError(f"{name} is not a readable PDF (corrupt or not a PDF): {' '.join(str(exc).split())}"
                            ) from exc
    if not doc.is_pdf:
        doc.close()
        raise DocumentError(f"{name} is not a readable PDF (corrupt or not a PDF): MuPDF reads it as another format")
    if doc.needs_pass:
        doc.close()
        raise DocumentError(f"{name} is encrypted: decrypt it first (e.g. `qpdf --decrypt --password=... in out`)")
    if doc.page_count == 0:
        doc.close()
        raise DocumentError(f"{name} has no pages")
    return doc, hashlib.sha256(data).hexdigest()


def _is_bold(span: TextSpan) -> bool:
    return bool(span["flags"] & 16) or bool(_BOLD_FONT.search(span["font"]))


def _is_italic(span: TextSpan) -> bool:
    return bool(span["flags"] & 2) or bool(_ITALIC_FONT.search(span["font"]))


def _text_blocks(page: pymupdf.Page, number: int) -> tuple[list[Block], list[int]]:
    """Text blocks of a page, and how many cells (text lines side by side) each of its text rows has."""
    blocks: list[Block] = []
    rows: dict[int, int] = defaultdict(int)
    page_text: TextPage = page.get_text("dict", flags=pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES)  # Any
    for raw in page_text["blocks"]:
        if raw.get("type") != 0:
            continue
        run: list[TextLine] = []
        style: tuple[float, bool, bool] | None = None
        for line in raw["lines"]:
            spans = [s for s in line["spans"] if s["text"].strip()]  # for style; spaces come as their own spans
            if not spans:
                continue
            rows[round((line["bbox"][1] + line["bbox"][3]) / 4)] += 1
            main = max(spans, key=lambda s: len(s["text"]))
            line_style = (round(main["size"] * 2) / 2, all(_is_bold(s) for s in spans), all(_is_italic(s) for s in spans))
            if style is not None and (abs(line_style[0] - style[0]) > 0.9 or line_style[1:] != style[1:]):
                blocks.append(_block(run, number))
                run = []
            style = line_style
            run.append(line)
        if run:
            blocks.append(_block(run, number))
    return blocks, list(rows.values())


def _horizontal_rules(page: pymupdf.Page) -> int:
    """Horizontal lines (or hairline rectangles) at least 30 points long drawn on the page."""
    count = 0
    for drawing in page.get_drawings():
        for item in drawing["items"]:
            if item[0] == "l" and abs(item[1].y - item[2].y) < 1 and abs(item[1].x - item[2].x) > 30:
                count += 1
            elif item[0] == "re" and item[1].height < 2 and item[1].width > 30:
                count += 1
    return count


def _block(lines: list[TextLine], page: int) -> Block:
    spans = [s for line in lines for s in line["spans"] if s["text"].strip()]
    main = max(spans, key=lambda s: len(s["text"]))
    text = "\n".join("".join(s["text"] for s in line["spans"]).strip() for line in lines)
    math_chars = sum(len(s["text"].strip()) for s in spans if MATH_FONT.search(s["font"]))
    chars = sum(len(s["text"].strip()) for s in spans) or 1
    x0 = min(line["bbox"][0] for line in lines)
    y0 = min(line["bbox"][1] for line in lines)
    x1 = max(line["bbox"][2] for line in lines)
    y1 = max(line["bbox"][3] for line in lines)
    block = Block(
        kind="text",
        text=text,
        page=page,
        bbox=(x0, y0, x1, y1),
        font_size=round(main["size"], 2),
        bold=all(_is_bold(s) for s in spans),  # whitespace spans excluded above
        italic=all(_is_italic(s) for s in spans),
        line_height=round(sum(line["bbox"][3] - line["bbox"][1] for line in lines) / len(lines), 2),
        lines=len(lines),
    )
    if math_chars / chars >= 0.4 and chars < 400:
        block.kind = "equation"
    elif CAPTION.match(text):
        block.kind = "caption"
    elif BULLET.match(text):
        block.kind = "list"
    return block


def _image_blocks(page: pymupdf.Page, number: int) -> list[Block]:
    area = page.rect.width * page.rect.height
    found: list[Block] = []
    for info in page.get_image_info():
        rect = pymupdf.Rect(info["bbox"]) & page.rect
        if rect.width < MIN_IMAGE_SIDE or rect.height < MIN_IMAGE_SIDE or rect.width * rect.height > 0.9 * area:
            continue
        if any(pymupdf.Rect(b.bbox).intersect(rect).get_area() > 0.5 * rect.get_area() for b in found):
            continue
        found.append(Block(kind="image", text="", page=number, bbox=tuple(rect)))
    return found


def _inside(block: Block, region: Block) -> bool:
    cx, cy = (block.bbox[0] + block.bbox[2]) / 2, (block.bbox[1] + block.bbox[3]) / 2
    x0, y0, x1, y1 = region.bbox
    return x0 - 2 <= cx <= x1 + 2 and y0 - 2 <= cy <= y1 + 2


def _attach_captions(blocks: list[Block], page_width: float) -> list[Block]:
    """Give each table/figure its nearest caption; a figure caption left over marks a vector figure."""
    captions = [b for b in blocks if b.kind == "caption"]
    used: set[int] = set()
    for target in (b for b in blocks if b.kind in ("table", "image")):
        pattern = TABLE_CAPTION if target.kind == "table" else FIGURE_CAPTION
        best, best_gap = None, CAPTION_GAP
        for cap in captions:
            if id(cap) in used or not pattern.match(cap.text):
                continue
            overlap = min(cap.bbox[2], target.bbox[2]) - max(cap.bbox[0], target.bbox[0])
            gap = max(cap.bbox[1] - target.bbox[3], target.bbox[1] - cap.bbox[3], 0.0)
            if overlap > 0 and gap < best_gap:
                best, best_gap = cap, gap
        if best is not None:
            used.add(id(best))
            target.caption = dehyphenate(best.text)
            if target.kind == "table":
                set_table(target, target.cells)
            else:
                target.text = target.caption
    out = []
    for b in blocks:
        if b.kind != "caption":
            out.append(b)
        elif id(b) in used:
            continue
        elif FIGURE_CAPTION.match(b.text):  # a figure drawn with vectors: the region above its caption
            above = [o for o in blocks if o.kind in ("text", "list", "title") and o.bbox[3] <= b.bbox[1]
                     and min(o.bbox[2], b.bbox[2]) > max(o.bbox[0], b.bbox[0])]
            top = max((o.bbox[3] for o in above), default=max(b.bbox[1] - 300, 0))
            if b.bbox[1] - top >= MIN_IMAGE_SIDE:
                x0, x1 = (0.0, page_width) if b.bbox[2] - b.bbox[0] > 0.55 * page_width else (b.bbox[0], b.bbox[2])
                caption = dehyphenate(b.text)
                out.append(Block(kind="image", text=caption, caption=caption, page=b.page,
                                 bbox=(x0, top + 2, x1, b.bbox[1] - 2)))
            else:
                b.kind = "text"
                out.append(b)
        else:
            b.kind = "text"
            out.append(b)
    return out


def _save_images(page: pymupdf.Page, blocks: list[Block], image_dir: Path, content_hash: str) -> None:
    for i, block in enumerate(b for b in blocks if b.kind == "image"):
        path = image_dir / image_file_name(content_hash, block.page, i)
        if not path.exists():
            clip = pymupdf.Rect(block.bbox)
            zoom = render_zoom(clip.width, clip.height, IMAGE_DPI)
            page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), clip=clip).save(path)
        block.image_path = str(path)


@dataclass
class _Pages:
    """The first pass over a PDF: each page's text and image blocks without running lines, its size, whether
    its text rows look like a table, and its text fragments (lines)."""

    blocks: dict[int, list[Block]]
    sizes: dict[int, tuple[float, float]]
    table_signal: dict[int, bool]
    body_size: float
    fragments: dict[int, int]
    scanned: dict[int, ocr.ScannedPage]  # the pages OCR'd: their tables are found on sandwiches (.scan_regions)
    furniture_only: set[int]  # pages whose only text was running headers, footers or page numbers

    def dense(self) -> list[int]:
        """The pages too dense for the region model (more than ``MAX_REGION_FRAGMENTS`` text fragments)."""
        return [n for n, count in self.fragments.items() if count > MAX_REGION_FRAGMENTS]

    def table_candidates(self) -> list[int]:
        """The table prefilter: pages that can hold a table. ``bookrag bench tables`` measures it against
        running the finder on every page."""
        return [n for n, blocks in self.blocks.items() if blocks and (
            self.table_signal[n] or any(b.kind == "caption" and TABLE_CAPTION.match(b.text) for b in blocks))]


def _table_signal(cells: list[int], page: pymupdf.Page | None) -> bool:
    """Three text rows of three or more cells, or a ruled table: three rows of two or more cells and six
    horizontal rules (two-column tables: grades, exhibits, specifications). A scanned page (``page`` None) has
    its rules as pixels: rows only."""
    if sum(n >= 3 for n in cells) >= 3:
        return True
    return page is not None and sum(n >= 2 for n in cells) >= 3 and _horizontal_rules(page) >= 6


def _read_pages(doc: pymupdf.Document, path: Path, on_page: Callable[[int, int], None] | None,
                options: ocr.OcrOptions = ocr.NO_OCR) -> _Pages:
    pages: dict[int, list[Block]] = {}
    signal: dict[int, bool] = {}
    sizes: dict[int, tuple[float, float]] = {}
    fragments: dict[int, int] = {}
    for page in doc.pages():
        number = page.number + 1
        sizes[number] = (page.rect.width, page.rect.height)
        text_blocks, cells = _text_blocks(page, number)
        fragments[number] = sum(cells)
        signal[number] = _table_signal(cells, page)
        pages[number] = text_blocks + _image_blocks(page, number)
        if on_page:
            on_page(number, 2 * doc.page_count)
    scanned = ocr.read_scanned_pages(doc, stored_name(path), pages, options)
    for number, scanned_page in scanned.items():  # their text is the OCR's
        cells = row_cells(scanned_page)
        fragments[number], signal[number] = sum(cells), _table_signal(cells, None)
    if not any(b.text.strip() for blocks in pages.values() for b in blocks):
        raise DocumentError(f"{stored_name(path)} {ocr.why_no_text(scanned, options.mode)}")
    running = running_lines(pages, {n: h for n, (_, h) in sizes.items()})
    content = {n: [b for b in blocks if id(b) not in running] for n, blocks in pages.items()}
    if not any(b.text.strip() for blocks in content.values() for b in blocks):
        # every line recurs like a running header (a one-line form on each page): that is the content, but for
        # bare page numbers
        content = {n: [b for b in blocks if not PAGE_NUMBER.match(b.text)] for n, blocks in pages.items()}
    furniture_only = {n for n, blocks in content.items() if not blocks and pages[n]}
    pages = content
    return _Pages(pages, sizes, signal, body_font_size([b for blocks in pages.values() for b in blocks]), fragments,
                  scanned, furniture_only)


def table_candidate_pages(path: Path) -> list[int]:
    """The pages (1-based) on which :func:`parse_pdf` runs the table finder."""
    doc, _ = open_pdf(path)
    with doc:
        return _read_pages(doc, path, None).table_candidates()


def parse_pdf(path: Path, *, image_dir: Path | None = None, tables: TableMode | bool = "regions",
              on_page: Callable[[int, int], None] | None = None, workers: int = 0,
              ocr_options: ocr.OcrOptions = ocr.NO_OCR) -> ParsedDocument:
    """Parse a PDF into blocks in reading order (see the module docstring).

    ``tables``: ``"regions"`` (PyMuPDF's region model decides, the most accurate, ~0.35 CPU-s a candidate page;
    ``"lines"`` on a page too dense for it), ``"lines"`` (ruled tables only, several times faster) or ``"off"``.
    ``workers``: processes that find tables side by side (:mod:`.table_pool`; 0: one per core, 1: in-process).
    ``on_page(done, total)`` is called as pages are read and again as they are laid out (``total`` counts both
    passes). ``ocr_options``: mode ``auto`` OCRs the pages that look scanned and the words inside figures,
    ``force`` every page too, ``off`` nothing (:mod:`.ocr`)."""
    mode: TableMode = "regions" if tables is True else "off" if tables is False else tables
    doc, content_hash = open_pdf(path)
    with doc:
        outline, warnings = read_outline(doc)
        first = _read_pages(doc, path, on_page, ocr_options)
        dense = first.dense()
        warnings += pages_warning(dense, f"has more than {MAX_REGION_FRAGMENTS:,} text fragments",
                                  f"have more than {MAX_REGION_FRAGMENTS:,} text fragments",
                                  ": the region model is not run there" + (
                                      " (tables found by their ruling lines only)" if mode == "regions" else ""))
        candidates = set(first.table_candidates()) if mode != "off" else set()
        find_tables = table_finder(path, content_hash, doc, sorted(candidates - set(first.scanned)), mode, workers,
                                   lines_only=set(dense))
        on_scans = scanned_tables(doc, first.scanned, sorted(candidates & set(first.scanned) - set(dense)), mode)
        ordered: list[Block] = []
        empty: list[int] = []  # pages without content: blank, or only running headers, footers and page numbers
        if image_dir is not None:
            image_dir.mkdir(parents=True, exist_ok=True)
        for number, blocks in first.blocks.items():
            if on_page:
                on_page(doc.page_count + number, 2 * doc.page_count)
            if not blocks:
                empty.append(number)
                continue
            page_found = on_scans.get(number) if number in first.scanned else (
                find_tables(number) if number in candidates else None)
            if page_found is not None:
                if page_found.regions is not None:  # the region model ran: keep its classes for heading detection
                    assign_classes(blocks, {number: page_found.regions})
                if found := page_found.tables:
                    blocks = [b for b in blocks if not any(_inside(b, t) for t in found) or b.kind == "caption"] + found
            for b in blocks:
                if b.kind == "text" and is_title_candidate(b, first.body_size):
                    b.kind = "title"
                if b.kind in ("text", "title", "caption"):
                    b.text = dehyphenate(b.text)
            width = first.sizes[number][0]
            blocks = _attach_captions(blocks, width)
            if image_dir is not None:
                _save_images(doc[number - 1], blocks, image_dir, content_hash)
            ordered += reading_order(blocks, width)
        ocr.read_figures(doc, ordered, first.scanned, ocr_options)
        furniture = [n for n in empty if n in first.furniture_only]
        warnings += pages_warning([n for n in empty if n not in first.furniture_only], "is empty", "are empty")
        warnings += pages_warning(furniture, "holds only running headers, footers or page numbers",
                                  "hold only running headers, footers or page numbers")
        for warning in warnings:
            log.warning("%s: %s", stored_name(path), warning)
        metadata_title = (doc.metadata or {}).get("title") or ""
        first_title = next((b.text for b in ordered if b.kind == "title"), "")
        return ParsedDocument(
            path=path,
            content_hash=content_hash,
            title=metadata_title.strip() or first_title or stored_text(path.stem),  # not UTF-8: escaped
            page_count=doc.page_count,
            blocks=refine(ordered),
            outline=outline,
            page_sizes=first.sizes,
            parser="pymupdf",
            warnings=warnings,
            region_skipped=dense,
        )
