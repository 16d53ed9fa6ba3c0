"""PyMuPDF's region model (``pymupdf.layout``, the ONNX model behind ``pymupdf4llm``) as a heading signal.

    parsed = parse_pdf(Path("paper.pdf"), tables="off")     # "regions" classifies the table pages already
    classify_pages(parsed, [1, 2])
    [b.text for b in parsed.blocks if b.region_class == "section-header"]   # ['I. INTRODUCTION', ...]

The model classifies page regions (``title``, ``section-header``, ``text``, ``table``, ``page-header`` ...). The layout
table finder runs it anyway on pages that can hold a table, and the parser keeps its classes there
(:func:`assign_classes`); :func:`classify_pages` runs it on more pages and stores on each text block the class of the
region covering most of it (:attr:`Block.region_class`). Costly per page (docs/eval/indexing.md), it runs on every page
(``regions``) or only where the classifier is unsure (``auto``), in the table finder's workers (:mod:`.table_pool`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from concurrent.futures.process import BrokenProcessPool

import pymupdf

from .blocks import Block, ParsedDocument
from .finder_speed import boxes_only
from .table_pool import MIN_POOL_PAGES, drop_pool, get_pool, main_module_hidden, pool_size, worker_document
from .tables import Region, regions_left

log = logging.getLogger(__name__)

HEADING_CLASSES = ("title", "section-header")


def page_regions(page: pymupdf.Page) -> list[Region]:
    """The region model's regions of one page: ``(x0, y0, x1, y1, class)``."""
    with boxes_only():
        page.get_layout()
    return regions_left(page)


def _worker_regions(path: str, content_hash: str, numbers: list[int]) -> dict[int, list[Region]]:
    """In a worker (or in-process): the regions of some pages."""
    pdf = worker_document(path, content_hash)
    return {n: page_regions(pdf[n - 1]) for n in numbers}


def regions(doc: ParsedDocument, pages: Iterable[int], workers: int = 0) -> dict[int, list[Region]]:
    """The region model's regions of ``pages`` of a PDF parsed by PyMuPDF (empty for other parsers); pages too
    dense for the model (:attr:`ParsedDocument.region_skipped`) are left out."""
    numbers = sorted(set(pages) - set(doc.region_skipped))
    if not numbers or doc.parser != "pymupdf" or not doc.path.is_file():
        return {}
    size = pool_size(workers)
    if size == 1 or len(numbers) < MIN_POOL_PAGES:
        return _worker_regions(str(doc.path), doc.content_hash, numbers)
    chunks = [numbers[k::size * 4] for k in range(size * 4)]
    found: dict[int, list[Region]] = {}
    try:
        with main_module_hidden():  # the pool's workers start on first submit
            futures = [get_pool(size).submit(_worker_regions, str(doc.path.absolute()), doc.content_hash, chunk)
                       for chunk in chunks if chunk]
        for future in futures:
            found.update(future.result())
    except BrokenProcessPool:
        log.warning("a layout worker died; the pages are read in-process")
        drop_pool()
        found.update(_worker_regions(str(doc.path), doc.content_hash, [n for n in numbers if n not in found]))
    return found


def _overlap(block: Block, box: Region) -> float:
    x0, y0, x1, y1 = block.bbox
    w = max(0.0, min(x1, box[2]) - max(x0, box[0]))
    h = max(0.0, min(y1, box[3]) - max(y0, box[1]))
    area = max((x1 - x0) * (y1 - y0), 1e-6)
    return w * h / area


def assign_classes(blocks: list[Block], found: dict[int, list[Region]]) -> None:
    """Set :attr:`Block.region_class` on the text blocks of the pages in ``found`` ("none" where no region
    covers half of a block)."""
    for block in blocks:
        boxes = found.get(block.page)
        if boxes is None or block.kind not in ("text", "title", "list", "caption"):
            continue
        best = max(boxes, key=lambda box: _overlap(block, box), default=None)
        block.region_class = best[4] if best is not None and _overlap(block, best) >= 0.5 else "none"


def spread(pages: list[int], n: int) -> set[int]:
    """At most ``n`` of ``pages`` (sorted), evenly spread over them."""
    n = min(n, len(pages))
    return {pages[int(k * len(pages) / n)] for k in range(n)} if n > 0 else set()


def classify_pages(doc: ParsedDocument, pages: Iterable[int], workers: int = 0) -> int:
    """Run the region model on ``pages`` and set the classes of their blocks; returns how many pages it read."""
    found = regions(doc, pages, workers)
    assign_classes(doc.blocks, found)
    log.debug("region model read %d pages of %s", len(found), doc.path.name)
    return len(found)
