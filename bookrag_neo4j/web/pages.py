"""Each citation as the web app shows it: the page it points to with its evidence boxes placed on that page's image
(as shares of the page, so the boxes scale with it); the pages themselves are drawn by
:mod:`bookrag_neo4j.library.page_images`.

    view = CitationView.of(citation, pdf=Path("R-data.pdf"), boxes=[PageBox(12, (72, 90, 540, 130))])
    view.boxes    # [Box(left=11.2, top=40.5, width=77.0, height=8.1)], percent of the page
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import DocumentError
from ..library.page_images import page_size
from ..retrieval.results import Citation


@dataclass(frozen=True)
class Box:
    """A box on a page, in percent of its width and height (CSS ``left/top/width/height``)."""

    left: float
    top: float
    width: float
    height: float

    @classmethod
    def of(cls, bbox: list[float], width: float, height: float) -> Box | None:
        """``bbox`` (x0, y0, x1, y1 in points) clipped to the page; ``None`` when nothing of it is on the page."""
        x0, y0, x1, y1 = (max(0.0, min(bbox[0], width)), max(0.0, min(bbox[1], height)),
                          max(0.0, min(bbox[2], width)), max(0.0, min(bbox[3], height)))
        if x1 <= x0 or y1 <= y0:
            return None
        return cls(round(100 * x0 / width, 2), round(100 * y0 / height, 2), round(100 * (x1 - x0) / width, 2),
                   round(100 * (y1 - y0) / height, 2))


@dataclass(frozen=True)
class PageBox:
    """A box to highlight: its page (1-based) and its corners in points (x0, y0, x1, y1)."""

    page: int
    bbox: tuple[float, float, float, float]


@dataclass(frozen=True)
class CitationView:
    """A citation as the answer page shows it: its label, the page to show, and the evidence boxes on it."""

    label: str  # without the document: citations are shown under their document's heading
    doc_key: str
    document: str
    page: int
    boxes: list[Box]
    text: str = ""
    has_page: bool = False  # the PDF is where it was indexed from: its page can be shown
    node_key: str = ""  # the cited item, for the document viewer's highlights

    @classmethod
    def of(cls, citation: Citation, *, pdf: Path | None, boxes: list[PageBox], text: str = "") -> CitationView:
        """The page is the citation's first page with a box (else its first page); the boxes those on it."""
        pages = [b.page for b in boxes if b.page >= max(citation.page_start, 1)]
        page = min(pages) if pages else max(citation.page_start, 1)
        try:
            width, height = page_size(pdf, page) if pdf is not None else (0.0, 0.0)
        except DocumentError:
            width = height = 0.0
        shown = [box for b in boxes if width and b.page == page and (box := Box.of(list(b.bbox), width, height))]
        return cls(citation.short_label, citation.doc_key, citation.document, page, shown, text,
                   has_page=bool(width), node_key=citation.node_key)


@dataclass(frozen=True)
class Highlight:
    """One evidence box in the document viewer: its page and its place on it (percent), and which cited item
    (0-based, in the answer's order) it belongs to."""

    item: int
    page: int
    box: Box


def highlights(pdf: Path, boxes: list[list[PageBox]]) -> list[Highlight]:
    """Every box of every cited item (``boxes``: each item's, in the answer's order) placed on its page, in
    reading order within an item; boxes off their page are left out."""
    sizes: dict[int, tuple[float, float]] = {}
    out = []
    for item, item_boxes in enumerate(boxes):
        for b in sorted(item_boxes, key=lambda b: (b.page, b.bbox[1], b.bbox[0])):
            if b.page not in sizes:
                try:
                    sizes[b.page] = page_size(pdf, b.page)
                except DocumentError:
                    sizes[b.page] = (0.0, 0.0)
            width, height = sizes[b.page]
            if width and (box := Box.of(list(b.bbox), width, height)):
                out.append(Highlight(item, b.page, box))
    return out
