"""Layout heuristics shared by parsers: reading order, running headers/footers, captions, titles, equations."""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from .blocks import Block

CAPTION = re.compile(r"^\s*(figure|fig\.?|table|chart|exhibit|plate)\s*[\dIVXLC]+[a-z]?\s*[.:\-–—]?", re.IGNORECASE)
FIGURE_CAPTION = re.compile(r"^\s*(figure|fig\.?|chart|exhibit|plate)\s*[\dIVXLC]+", re.IGNORECASE)
TABLE_CAPTION = re.compile(r"^\s*table\s*[\dIVXLC]+", re.IGNORECASE)
NUMBERING = re.compile(
    r"^\s*(?:(?:chapter|part|section|appendix|item)\s+[\dIVXLCA-Z]+[.:]?|[\dIVX]+(?:\.\d+)*\.?|[A-Z]\.(?:\d+\.?)*)\s+\S",
    re.IGNORECASE,
)
BULLET = re.compile(r"^\s*(?:[•●▪◦‣∙·\-–*]|\(?[0-9a-z]{1,2}[.)])\s+")
PAGE_NUMBER = re.compile(r"^\s*(?:page\s*)?[\dIVXLCivxlc]{1,5}(?:\s*(?:of|/)\s*\d+)?\s*$", re.IGNORECASE)
MATH_FONT = re.compile(r"CMMI|CMSY|CMEX|MSBM|MSAM|Math|Symbol|STIX|rsfs|eufm", re.IGNORECASE)
_DIGITS = re.compile(r"\d+")
# "12 Chapter 3. Installation" / "Section 2.1 Scope 7": a running title with its page number
RUNNING_TITLE = re.compile(r"^(?:\d+\s+(?:chapter|section|part)\b.{0,80}|(?:chapter|section|part)\b.{0,80}\s\d+)$",
                           re.IGNORECASE)
LABEL_ONLY = re.compile(r"^(?:chapter|part|section|appendix|contents|table of contents)$|.*:$", re.IGNORECASE)
TOC_LINE = re.compile(r"(?:\.\s*){3,}\s*[\dIVXivx]+\s*$")  # "Introduction . . . . . 12"
MIN_IMAGE_SIDE = 40.0  # points; smaller images are icons, bullets, logos
HEADING_SIZE_RATIO = 1.12  # a heading set by size is at least 12% larger than body text


def body_font_size(blocks: list[Block]) -> float:
    """The most common font size, weighted by characters (the body text's size)."""
    sizes: Counter[float] = Counter()
    for b in blocks:
        if b.kind in ("text", "list", "title") and b.font_size:
            sizes[round(b.font_size * 2) / 2] += len(b.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0


def reading_order(blocks: list[Block], page_width: float) -> list[Block]:
    """Order one page's blocks: by rows on single-column pages; band by band, left column then right, on
    two-column pages (a band ends at a block that spans both columns)."""
    if not blocks:
        return blocks
    mid = page_width / 2
    left = [b for b in blocks if b.bbox[2] <= mid + 4]
    right = [b for b in blocks if b.bbox[0] >= mid - 4]
    chars = sum(len(b.text) for b in blocks) or 1
    two_columns = (
        sum(len(b.text) for b in left) > 0.2 * chars and sum(len(b.text) for b in right) > 0.2 * chars
        and len(left) >= 2 and len(right) >= 2
    )
    by_row = sorted(blocks, key=lambda b: (round(b.bbox[1] / 3), b.bbox[0]))
    if not two_columns:
        return by_row
    in_a_column = {id(b) for b in left} | {id(b) for b in right}  # by identity: O(n log n) for the page, not O(n²)
    ordered: list[Block] = []
    band: list[Block] = []
    for b in by_row:
        if id(b) in in_a_column:
            band.append(b)
            continue
        ordered += _band(band, mid)
        band = []
        ordered.append(b)
    return ordered + _band(band, mid)


def _band(band: list[Block], mid: float) -> list[Block]:
    return sorted(band, key=lambda b: (b.bbox[0] >= mid - 4, b.bbox[1], b.bbox[0]))


def running_lines(pages: dict[int, list[Block]], heights: dict[int, float]) -> set[int]:
    """ids of blocks that are running headers/footers or page numbers: in the top or bottom 9% of the page,
    and either a bare page number or text (digits ignored) that recurs on at least three pages."""
    if not pages:
        return set()
    marks: set[int] = set()
    bands: dict[tuple[str, str], list[Block]] = defaultdict(list)
    for page, blocks in pages.items():
        height = heights.get(page, 792.0)
        for b in blocks:
            top, bottom = b.bbox[3] < 0.09 * height, b.bbox[1] > 0.91 * height
            if not (top or bottom) or b.kind in ("table", "image"):
                continue
            if PAGE_NUMBER.match(b.text) or RUNNING_TITLE.match(b.text):
                marks.add(id(b))
                continue
            key = _DIGITS.sub("#", " ".join(b.text.lower().split()))[:80]
            bands[("top" if top else "bottom", key)].append(b)
    threshold = 3  # running headers often change per chapter: three pages with the same text is enough
    for found in bands.values():
        if len({b.page for b in found}) >= threshold:
            marks.update(id(b) for b in found)
    return marks


def is_title_candidate(block: Block, body_size: float) -> bool:
    """A short block that looks like a heading: larger than body text, or bold/numbered and short."""
    text = block.text.strip()
    words = len(text.split())
    if block.kind not in ("text", "title") or not text or words > 20 or block.lines > 3:
        return False
    if text[-1] in ".,;" and not NUMBERING.match(text) or CAPTION.match(text) or TOC_LINE.search(text):
        return False
    if LABEL_ONLY.match(text):  # "Note:", "Warning:", a lone "CHAPTER" above the chapter's title
        return False
    if sum(c.isalpha() for c in text) < 2:
        return False
    if block.font_size >= body_size * HEADING_SIZE_RATIO:
        return True
    if block.bold and words <= 12:
        return True
    # "IV. RESULTS": a short numbered line in capitals (headings set in small caps at or below body size)
    return block.lines == 1 and words <= 8 and numbering_depth(text) is not None and text.upper() == text


LEADING_NUMBER = re.compile(
    r"^\s*(?:(?:chapter|part|section|appendix)\s+\w+[.:]?\s+|[\dIVX]+(?:\.\d+)*\.?\s+|[A-Z](?:\.\d+)*\.?\s+(?=\S))",
    re.IGNORECASE,
)


def strip_numbering(title: str) -> str:
    """'2.3 Vector arithmetic' -> 'Vector arithmetic' (also 'Chapter 4 ...', 'A.1 ...', 'IV. ...')."""
    return LEADING_NUMBER.sub("", title).strip()


def numbering_depth(text: str) -> int | None:
    """1 for '3 Title' / 'Chapter 3' / 'Appendix B', 2 for '3.1 Title' or 'A.1 Title', 3 for '3.1.2' or 'B.2.1';
    None without numbering."""
    match = re.match(r"^\s*(\d+(?:\.\d+)*|[A-Z](?:\.\d+)+)\.?\s+\S", text)
    if match:
        return match.group(1).count(".") + 1
    if re.match(r"^\s*(chapter|part|appendix)\s+[\dIVXLCA-Z]+\b", text, re.IGNORECASE):
        return 1
    if re.match(r"^\s*(item|article|section)\s+\d+[A-Z]?\b", text, re.IGNORECASE):  # "Item 7A." in SEC filings
        return 2
    if re.match(r"^\s*[IVX]{1,5}\.\s+[A-Z]", text):  # "IV. Results"
        return 1
    return None
