"""Bounding boxes for MinerU content-list items, from the page sizes and para_blocks of ``*_middle.json``.

    boxes = PageBoxes.from_middle(json.loads(path.read_text()), path.name)  # PageBoxes() without middle.json
    candidate = boxes.match(page=1, family="text", text="Introduction")
    bbox = boxes.bbox([88, 170, 452, 186], page=1, candidate=candidate)  # the content list's "bbox"

The content list gives boxes normalised to 0-1000 (mineru 2.2+) or none (older versions); middle.json gives each page's
size and its blocks' boxes in PDF points. :class:`PageBoxes` matches each item to the para_block it came from (same page
and family, by word overlap, else in reading order) and returns the item's box in PDF points; ``warnings()`` reports
boxes it could not convert or find.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, cast

from ..errors import DocumentError
from .blocks import BBox
from .mineru_shapes import MiddleBlock, MiddlePage

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


def page_number(page_idx: Any, where: str) -> int:
    """MinerU's 0-based ``page_idx`` as our 1-based page number; ``where`` names the item in the error."""
    if isinstance(page_idx, bool) or not isinstance(page_idx, int) or page_idx < 0:
        raise DocumentError(f"{where} has no valid page_idx ({page_idx!r})")
    return page_idx + 1


@dataclass
class Candidate:
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
    candidates: list[Candidate] = field(default_factory=list)
    cursor: int = 0


class PageBoxes:
    """The pages of middle.json (none without it), and counts of the boxes it could not give in PDF points."""

    def __init__(self, pages: dict[int, _Page] | None = None) -> None:
        self.pages = pages or {}
        self.unnormalised = 0
        self.without_box = 0

    @classmethod
    def from_middle(cls, data: Any, name: str) -> PageBoxes:
        """Read the parsed JSON of a middle.json file (``name`` for errors)."""
        pdf_info = data.get("pdf_info") if isinstance(data, dict) else None
        if not isinstance(pdf_info, list):
            raise DocumentError(f"{name}: expected an object with a 'pdf_info' list of pages")
        pages: dict[int, _Page] = {}
        for position, raw in enumerate(pdf_info):
            if not isinstance(raw, dict):
                raise DocumentError(f"{name}: pdf_info[{position}] is not an object")
            info = cast(MiddlePage, raw)  # its values are still checked where they are read
            number = page_number(info.get("page_idx", position), f"{name}: pdf_info[{position}]")
            page = _Page(size=_page_size(info.get("page_size")))
            for block in info.get("para_blocks") or []:
                if not isinstance(block, dict):
                    continue
                block_type = str(block.get("type", ""))
                family = _MIDDLE_FAMILY.get(block_type)
                if family is None:
                    continue
                nested = list(_nested(block))
                page.candidates.append(
                    Candidate(
                        block_type=block_type,
                        family=family,
                        bbox=_bbox(block.get("bbox")),
                        tokens=_tokens(" ".join(_span_texts(nested))),
                        lines=sum(len(b.get("lines") or []) for b in nested),
                    )
                )
            pages[number] = page
        return cls(pages)

    @property
    def sizes(self) -> dict[int, tuple[float, float]]:
        """Page number -> (width, height) in PDF points, for the pages that state a valid size."""
        return {number: page.size for number, page in self.pages.items() if page.size is not None}

    def match(self, page: int, family: str, text: str) -> Candidate | None:
        """The para_block of the same page and family that this item came from: by text overlap, else in order."""
        info = self.pages.get(page)
        if info is None:
            return None
        words = _tokens(text)
        order = list(range(info.cursor, len(info.candidates))) + list(range(info.cursor))
        best: tuple[float, int] | None = None
        for position in order:
            candidate = info.candidates[position]
            if candidate.used or candidate.family != family:
                continue
            if words and candidate.tokens:
                # Paragraphs must share most of their words both ways (a short title inside a long paragraph is no
                # match); captions and LaTeX only need to be contained in the other side.
                bound = max if family == "text" else min
                score = len(words & candidate.tokens) / bound(len(words), len(candidate.tokens))
                if score < _MATCH_THRESHOLD:
                    continue
            elif family == "text" and (words or candidate.tokens):
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

    def bbox(self, value: Any, page: int, candidate: Candidate | None) -> BBox:
        """The box in PDF points of an item whose content-list ``bbox`` is ``value`` (0-1000, or absent)."""
        own = _bbox(value)
        info = self.pages.get(page)
        size = info.size if info is not None else None
        if own is not None:
            if size is None:
                self.unnormalised += 1
                return own
            if candidate is not None and candidate.bbox is not None and _same_box(own, candidate.bbox, size):
                return candidate.bbox  # the same box, unrounded (MinerU truncates to whole thousandths)
            width, height = size
            return (own[0] * width / 1000, own[1] * height / 1000, own[2] * width / 1000, own[3] * height / 1000)
        if candidate is not None and candidate.bbox is not None:
            return candidate.bbox
        self.without_box += 1
        return _DEFAULT_BBOX

    def warnings(self) -> list[str]:
        """What went wrong with the boxes so far, for :attr:`ParsedDocument.warnings`."""
        warnings = []
        if self.unnormalised:
            warnings.append(
                f"{self.unnormalised} boxes are MinerU's 0-1000 page-normalised coordinates, not PDF points: "
                "no middle.json page sizes to convert them"
            )
        if self.without_box:
            warnings.append(f"{self.without_box} blocks have no bounding box (no bbox and no middle.json match)")
        return warnings


def _tokens(text: str) -> frozenset[str]:
    # NFKC: middle.json spans keep the PDF's ligatures ("\ufb02ow") where the content list has "flow".
    return frozenset(_WORD.findall(unicodedata.normalize("NFKC", text).lower()))


def _bbox(value: Any) -> BBox | None:
    if isinstance(value, list | tuple) and len(value) == 4 and all(_is_number(v) for v in value):
        x0, y0, x1, y1 = (float(v) for v in value)
        return (x0, y0, x1, y1)
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _page_size(value: Any) -> tuple[float, float] | None:
    if isinstance(value, list | tuple) and len(value) == 2 and all(_is_number(v) for v in value):
        width, height = float(value[0]), float(value[1])
        if width > 0 and height > 0:
            return (width, height)
    return None


def _nested(block: MiddleBlock) -> Iterator[MiddleBlock]:
    """A para_block and, depth first, the blocks inside it (an image's body, caption and footnote)."""
    yield block
    for child in block.get("blocks") or []:
        if isinstance(child, dict):
            yield from _nested(child)


def _span_texts(blocks: list[MiddleBlock]) -> Iterator[str]:
    for block in blocks:
        for line in block.get("lines") or []:
            for span in (line or {}).get("spans") or []:
                content = (span or {}).get("content")
                if isinstance(content, str) and content:
                    yield content


def _same_box(normalised: BBox, points: BBox, size: tuple[float, float]) -> bool:
    width, height = size
    scales = (width, height, width, height)
    return all(abs(n - p * 1000 / s) <= 1.5 for n, p, s in zip(normalised, points, scales, strict=True))
