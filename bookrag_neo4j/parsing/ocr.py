"""OCR with Tesseract where a page or a figure needs it: a scanned page becomes ordinary text blocks with boxes
(so citations, highlights and every method work on it), and the words inside a figure become its image block's
searchable text, kept apart from its caption.

    options = OcrOptions("auto", "eng", cache=Path("~/.cache/bookrag-neo4j/ocr"))
    scanned = read_scanned_pages(doc, "scan.pdf", pages, options)  # {page: blocks} gets the OCR'd blocks
    read_figures(doc, blocks, set(scanned), options)               # each big figure's image_text

A scanned page's photos and charts are the regions Tesseract's layout analysis leaves without words; its words
and their boxes (:class:`ScannedPage`) let the table finder read the page (:mod:`.scan_regions`).

Tesseract (Debian ``tesseract-ocr``) was chosen by measuring it against RapidOCR on rendered pages of the dev
PDFs whose text is known (``docs/eval/ocr/``): better words on every kind of page and faster on 2 cores. It runs
as a subprocess on a 150 dpi grey rendering, one page per core at a time (its own threads only slow it there).
A rendering holds at most :data:`~.limits.MAX_RENDER_PIXELS` (a huge page is read at a lower resolution), and the
renderings waiting for Tesseract at most :data:`PIXELS_IN_FLIGHT` together.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
from collections.abc import Callable, Container, Iterator, Sequence, Sized
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median
from typing import TYPE_CHECKING, Literal, TypeVar

import pymupdf

from ..errors import DocumentError
from .blocks import Block, BlockKind
from .limits import MAX_RENDER_PIXELS, render_zoom
from .page_rules import BULLET, CAPTION, MIN_IMAGE_SIDE

if TYPE_CHECKING:
    from ..config import Settings

log = logging.getLogger(__name__)

OcrMode = Literal["auto", "off", "force"]


@dataclass(frozen=True)
class OcrOptions:
    """How a parse OCRs: ``mode`` (``BOOKRAG_OCR``), Tesseract's ``language``, and a folder that keeps each
    image's reading by its bytes (``cache``: a re-index, or the layout layer's second look, costs no OCR)."""

    mode: OcrMode = "off"
    language: str = "eng"
    cache: Path | None = None


    @classmethod
    def of(cls, settings: Settings) -> OcrOptions:
        """The settings' (``BOOKRAG_OCR``, ``BOOKRAG_OCR_LANGUAGE``), readings kept under ``cache_dir/ocr``."""
        return cls(settings.indexing.ocr, settings.indexing.ocr_language, settings.cache_dir / "ocr")


NO_OCR = OcrOptions()
DPI = 150
MIN_PAGE_CHARS = 200  # auto: a page with less text than this that is mostly a raster image is a scan
MIN_IMAGE_COVER = 0.5  # ... of the page's area
MIN_FIGURE_SIDE = 100.0  # points: smaller images (icons, logos) are not read
MIN_WORD_CONFIDENCE = 30.0  # Tesseract's 0-100; below it a "word" is mostly a photo's texture
MIN_LINE_CONFIDENCE = 50.0
TIMEOUT = 120.0  # seconds for one page
PIXELS_IN_FLIGHT = 4 * MAX_RENDER_PIXELS  # rendered and not yet read: at most this many pixels (about 32 MB grey)
T = TypeVar("T")


def tesseract() -> str | None:
    """The Tesseract binary, or None when it is not installed."""
    return shutil.which("tesseract")


def page_chars(blocks: Sequence[Block]) -> int:
    return sum(len(b.text.strip()) for b in blocks if b.kind != "image")


def needs_page_ocr(page: pymupdf.Page, chars: int, mode: OcrMode) -> bool:
    """``force``: every page; ``auto``: a page with under ``MIN_PAGE_CHARS`` characters of text whose raster
    images cover at least half of it (a scan, perhaps with a stamp's line of text); ``off``: none."""
    if mode != "auto":
        return mode == "force"
    if chars >= MIN_PAGE_CHARS:
        return False
    area = abs(page.rect) or 1.0
    covered = sum(abs(pymupdf.Rect(info["bbox"]) & page.rect) for info in page.get_image_info())
    return covered / area >= MIN_IMAGE_COVER


@dataclass
class _Line:
    words: list[str] = field(default_factory=list)
    boxes: list[pymupdf.Rect] = field(default_factory=list)
    rect: pymupdf.Rect = field(default_factory=pymupdf.Rect)
    confidence: list[float] = field(default_factory=list)


@dataclass
class _Reading:
    """Tesseract's reading of one image: its lines grouped by paragraph, in reading order, and the regions its
    layout analysis found without words (photos, charts); boxes in page coordinates."""

    paragraphs: dict[tuple[int, int], list[_Line]]
    figures: list[pymupdf.Rect]


@dataclass
class ScannedPage:
    """An OCR'd page: its blocks (text, one a Tesseract paragraph, and its figures as image blocks) and the
    lines' words with their boxes."""

    blocks: list[Block]
    lines: list[list[tuple[pymupdf.Rect, str]]]


def _tsv(png: bytes, dpi: int, options: OcrOptions) -> str:
    """Tesseract's TSV of one image, from the cache when it read these bytes before."""
    cached = None
    if options.cache is not None:
        cached = options.cache / f"{hashlib.sha256(png).hexdigest()}-{options.language}.tsv"
        if cached.is_file():
            return cached.read_text(encoding="utf-8")
    tsv = _tesseract(png, dpi, options.language)
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.part")
        partial.write_text(tsv, encoding="utf-8")
        partial.replace(cached)  # whole or absent, whoever reads it
    return tsv


def _tesseract(png: bytes, dpi: int, language: str) -> str:
    binary = tesseract()
    if binary is None:
        raise DocumentError("OCR needs Tesseract: install it with `make ocr` (Debian: apt-get install "
                            "tesseract-ocr tesseract-ocr-eng), or index with --ocr off")
    try:
        done = subprocess.run([binary, "stdin", "stdout", "--psm", "3", "--dpi", str(dpi), "-l", language, "tsv"],
                              input=png, capture_output=True, timeout=TIMEOUT, check=True,
                              env={**os.environ, "OMP_THREAD_LIMIT": "1"})
    except subprocess.CalledProcessError as exc:
        raise DocumentError(f"Tesseract failed: {exc.stderr.decode('utf-8', 'replace').strip()[:300]}") from exc
    except subprocess.TimeoutExpired as exc:
        raise DocumentError(f"Tesseract took more than {TIMEOUT:.0f} s on one page") from exc
    return done.stdout.decode("utf-8", "replace")


@dataclass(frozen=True)
class _Rendering:
    """A grey PNG of a page or a region, its resolution, and the matrix from its pixels back to page coordinates."""

    png: bytes
    dpi: int
    to_page: pymupdf.Matrix


def _read(image: _Rendering, options: OcrOptions) -> _Reading:
    """Tesseract's reading of one image (see :class:`_Reading`); boxes in page coordinates."""
    paragraphs: dict[tuple[int, int], dict[int, _Line]] = {}
    regions: dict[int, pymupdf.Rect] = {}
    worded: set[int] = set()
    to_page = image.to_page
    for row in _tsv(image.png, image.dpi, options).splitlines()[1:]:
        f = row.split("\t")
        if len(f) < 12:
            continue
        x, y, w, h = map(int, f[6:10])
        rect = pymupdf.Rect(x, y, x + w, y + h) * to_page
        if f[0] == "2":
            regions[int(f[2])] = rect
        if f[0] != "5" or not f[11].strip():
            continue
        worded.add(int(f[2]))
        if float(f[10]) < MIN_WORD_CONFIDENCE:
            continue
        line = paragraphs.setdefault((int(f[2]), int(f[3])), {}).setdefault(int(f[4]), _Line())
        line.words.append(f[11].strip())
        line.boxes.append(rect)
        line.rect |= rect
        line.confidence.append(float(f[10]))
    figures = [rect for key, rect in regions.items() if key not in worded
               and min(rect.width, rect.height) >= MIN_IMAGE_SIDE]
    return _Reading({key: kept for key, lines in paragraphs.items()
                     if (kept := [ln for ln in lines.values() if median(ln.confidence) >= MIN_LINE_CONFIDENCE])},
                    figures)


def _zoom(page: pymupdf.Page, clip: pymupdf.Rect | None) -> float:
    area = page.rect if clip is None else clip
    return render_zoom(area.width, area.height, DPI)


def _render(page: pymupdf.Page, clip: pymupdf.Rect | None = None) -> _Rendering:
    """The page (or ``clip``) in grey at ``DPI``, or lower where that would exceed ``MAX_RENDER_PIXELS``."""
    zoom = _zoom(page, clip)
    pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), colorspace=pymupdf.csGRAY, clip=clip)
    to_page = pymupdf.Matrix(1 / zoom, 1 / zoom) * page.derotation_matrix
    if clip is not None:
        to_page = to_page * pymupdf.Matrix(1, 1).pretranslate(clip.x0, clip.y0)
    return _Rendering(pix.tobytes("png"), max(1, round(zoom * 72)), to_page)


def _batches(items: Sequence[T], pixels: Callable[[T], float], most: int) -> Iterator[list[T]]:
    """``items`` in order, in batches of at most ``most`` whose renderings hold at most ``PIXELS_IN_FLIGHT``
    pixels together (one item at least)."""
    batch: list[T] = []
    held = 0.0
    for item in items:
        size = pixels(item)
        if batch and (len(batch) == most or held + size > PIXELS_IN_FLIGHT):
            yield batch
            batch, held = [], 0.0
        batch.append(item)
        held += size
    if batch:
        yield batch


def _pixels(page: pymupdf.Page, clip: pymupdf.Rect | None = None) -> float:
    area = page.rect if clip is None else clip
    return abs(area) * _zoom(page, clip) ** 2


def _scanned_page(reading: _Reading, number: int, area: float) -> ScannedPage:
    blocks = []
    for lines in reading.paragraphs.values():
        box = pymupdf.Rect()
        for line in lines:
            box |= line.rect
        height = median(line.rect.height for line in lines)
        text = "\n".join(" ".join(line.words) for line in lines)
        kind: BlockKind = "caption" if CAPTION.match(text) else "list" if BULLET.match(text) else "text"
        blocks.append(Block(kind=kind, text=text, page=number, bbox=(box.x0, box.y0, box.x1, box.y1),
                            font_size=round(height, 1), line_height=round(height, 2), lines=len(lines)))
    blocks += [Block(kind="image", text="", page=number, bbox=(rect.x0, rect.y0, rect.x1, rect.y1))
               for rect in reading.figures if abs(rect) <= 0.9 * area]  # not the whole scan
    return ScannedPage(blocks, [list(zip(line.boxes, line.words, strict=True))
                                for lines in reading.paragraphs.values() for line in lines])


def _workers() -> int:
    return max(1, min(os.cpu_count() or 1, 8))


def ocr_pages(pages: Sequence[pymupdf.Page], numbers: Sequence[int], options: OcrOptions) -> dict[int, ScannedPage]:
    """Each page OCR'd into blocks with boxes in page coordinates (:class:`ScannedPage`): rendered here, read
    by Tesseract processes side by side (one a core)."""
    found: dict[int, ScannedPage] = {}
    jobs = list(zip(numbers, pages, strict=True))
    with ThreadPoolExecutor(_workers()) as pool:  # a few pages rendered ahead, not the whole document
        for batch in _batches(jobs, lambda job: _pixels(job[1]), 2 * _workers()):
            rendered = [(number, abs(page.rect), _render(page)) for number, page in batch]
            results = pool.map(lambda job: (job[0], job[1], _read(job[2], options)), rendered)
            found |= {number: _scanned_page(reading, number, area) for number, area, reading in results}
    return found


def ocr_regions(regions: Sequence[tuple[pymupdf.Page, pymupdf.Rect]], options: OcrOptions) -> list[str]:
    """The words Tesseract reads inside each region (a figure), line by line."""
    results: list[_Reading] = []
    with ThreadPoolExecutor(_workers()) as pool:
        for batch in _batches(regions, lambda job: _pixels(*job), 2 * _workers()):
            results += pool.map(lambda image: _read(image, options), [_render(page, rect) for page, rect in batch])
    return ["\n".join(" ".join(line.words) for lines in reading.paragraphs.values() for line in lines)
            for reading in results]


def merge(existing: list[Block], ocr: list[Block]) -> list[Block]:
    """The page's own blocks, and the OCR'd blocks that do not mostly lie on the page's own of their sort (text
    on its text, a figure on its images)."""
    def covered(block: Block) -> bool:
        rect = pymupdf.Rect(block.bbox)
        return sum(abs(rect & pymupdf.Rect(b.bbox)) for b in existing
                   if (b.kind == "image") == (block.kind == "image")) > 0.5 * abs(rect)
    return existing + [b for b in ocr if not covered(b)]


def read_scanned_pages(doc: pymupdf.Document, name: str, pages: dict[int, list[Block]],
                       options: OcrOptions) -> dict[int, ScannedPage]:
    """OCR the pages that need it (:func:`needs_page_ocr`) into blocks beside the page's own; the pages OCR'd.
    Without Tesseract, ``auto`` warns and reads none."""
    wanted = [n for n, blocks in pages.items() if needs_page_ocr(doc[n - 1], page_chars(blocks), options.mode)]
    if not wanted:
        return {}
    if options.mode == "auto" and tesseract() is None:
        log.warning("%s: %d page(s) look scanned, but Tesseract is not installed (`make ocr`): not OCR'd",
                    name, len(wanted))
        return {}
    found = ocr_pages([doc[n - 1] for n in wanted], wanted, options)
    for number, page in found.items():
        pages[number] = merge(pages[number], page.blocks)
    log.info("%s: OCR'd %d page(s)", name, len(wanted))
    return found


def why_no_text(scanned: Sized, mode: OcrMode) -> str:
    if scanned:
        return "has no text, even after OCR (blank or unreadable pages)"
    if mode == "off" or tesseract() is None:
        return ("has no text layer (scanned or image-only): index it with --ocr auto (needs Tesseract: `make ocr`), "
                "or index MinerU output with --mineru-output")
    return "has no text: its pages are blank (no text layer, no image to OCR)"


def read_figures(doc: pymupdf.Document, blocks: list[Block], skip: Container[int], options: OcrOptions) -> None:
    """The words inside each figure at least ``MIN_FIGURE_SIDE`` on both sides (not on OCR'd pages) become its
    ``image_text``, and its searchable text is its caption and those words (nothing with ``off`` or without
    Tesseract)."""
    if options.mode == "off" or tesseract() is None:
        return
    figures = [b for b in blocks if b.kind == "image" and b.page not in skip
               and min(b.bbox[2] - b.bbox[0], b.bbox[3] - b.bbox[1]) >= MIN_FIGURE_SIDE]
    texts = ocr_regions([(doc[b.page - 1], pymupdf.Rect(b.bbox)) for b in figures], options)
    for block, text in zip(figures, texts, strict=True):
        block.image_text = text
        block.text = "\n".join(t for t in (block.caption, text) if t)
