"""Line features of heading candidates, for the learned heading classifier (:mod:`.learned`).

    candidates, matrix = candidate_features(parsed)      # block positions, one row of FEATURES each

A candidate is a short text block (at most 4 lines and 30 words, two letters or more): the parser already splits a block
where a whole line's size, weight or slant changes, so a heading is a block of its own. Its features are a reader's,
relative to the document so they carry across documents: size against body text and its rank; bold, italic, capitals;
numbering style and depth, length, a trailing period or colon; indentation, centring, position, space above and below;
the font change from the previous block; how common its style is, how often its text recurs; and the parser's verdicts
(title candidate, MinerU's ``text_level``, the region model's class).
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict

import numpy as np

from ..parsing.blocks import Block, ParsedDocument
from ..parsing.page_rules import HEADING_SIZE_RATIO, body_font_size, numbering_depth

FEATURES = (
    "size_ratio", "size_rank", "bold", "italic", "caps", "capitalised", "numbering", "numbered_keyword",
    "numbered_roman", "numbered_letter", "words", "chars_log", "lines", "ends_period", "ends_colon", "ends_digit",
    "starts_lower", "indent", "centred", "y_top", "space_above", "space_below", "size_vs_previous",
    "bold_change", "next_is_body", "style_per_page", "text_recurs", "parser_title", "parser_level",
    "layout_heading", "layout_known", "doc_numbered", "toc_page", "first_page",
)
CANDIDATE_KINDS = ("text", "title", "list")
_KEYWORD = re.compile(r"^\s*(chapter|part|section|appendix|item|article)\b", re.IGNORECASE)
_ROMAN = re.compile(r"^\s*[IVX]{1,5}\.\s")
_LETTER = re.compile(r"^\s*[A-Z](\.\d+)*\.?\s")
_ENDS_WITH_PAGE = re.compile(r"\s\.?\s*[\dixv]{1,4}\s*$")


def toc_pages(doc: ParsedDocument) -> set[int]:
    """Table-of-contents pages: five or more lines ending in a page number."""
    ends: Counter[int] = Counter(b.page for b in doc.blocks if b.kind in ("title", "text", "list")
                                 and len(b.text) < 150 and _ENDS_WITH_PAGE.search(b.text))
    return {page for page, n in ends.items() if n >= 5}


def is_candidate(block: Block) -> bool:
    words = len(block.text.split())
    return (block.kind in CANDIDATE_KINDS and 1 <= words <= 30 and block.lines <= 4
            and sum(c.isalpha() for c in block.text) >= 2)


def style(block: Block) -> tuple[float, bool, bool]:
    return round(block.font_size * 2) / 2, block.bold, block.italic


def _norm(text: str) -> str:
    return re.sub(r"\d+", "#", " ".join(text.lower().split()))[:80]


def candidate_features(doc: ParsedDocument) -> tuple[list[int], np.ndarray]:
    """The positions of the candidate blocks in ``doc.blocks`` and their feature rows (columns: ``FEATURES``)."""
    blocks = doc.blocks
    candidates = [i for i, b in enumerate(blocks) if is_candidate(b)]
    if not candidates:
        return [], np.zeros((0, len(FEATURES)), dtype=np.float32)
    body = body_font_size(blocks) or 10.0
    pages = max(doc.page_count, 1)
    sizes_above = sorted({style(blocks[i])[0] for i in candidates if blocks[i].font_size >= body * HEADING_SIZE_RATIO},
                         reverse=True)
    rank = {s: k for k, s in enumerate(sizes_above)}
    style_count = Counter(style(blocks[i]) for i in candidates)
    text_pages: dict[str, set[int]] = defaultdict(set)
    for i in candidates:
        text_pages[_norm(blocks[i].text)].add(blocks[i].page)
    margins: dict[int, float] = {}
    for b in blocks:
        if b.kind in ("text", "list", "title") and any(b.bbox):
            margins[b.page] = min(margins.get(b.page, b.bbox[0]), b.bbox[0])
    titles = [b for b in blocks if b.kind == "title"]
    doc_numbered = sum(numbering_depth(b.text) is not None for b in titles) / len(titles) if titles else 0.0
    skip = toc_pages(doc)
    rows = []
    for i in candidates:
        b = blocks[i]
        text = b.text.strip()
        letters = [c for c in text if c.isalpha()]
        words = text.split()
        width, height = doc.page_sizes.get(b.page, (612.0, 792.0))
        prev = blocks[i - 1] if i > 0 else None
        nxt = blocks[i + 1] if i + 1 < len(blocks) else None
        above = b.bbox[1] - prev.bbox[3] if prev is not None and prev.page == b.page else b.bbox[1]
        below = nxt.bbox[1] - b.bbox[3] if nxt is not None and nxt.page == b.page else height - b.bbox[3]
        depth = numbering_depth(text)
        rows.append((
            b.font_size / body if b.font_size else 1.0,
            rank.get(style(b)[0], -1),
            b.bold, b.italic,
            sum(c.isupper() for c in letters) / max(len(letters), 1),
            sum(w[:1].isupper() for w in words) / max(len(words), 1),
            depth or 0, bool(_KEYWORD.match(text)), bool(_ROMAN.match(text)), bool(_LETTER.match(text)),
            len(words), math.log1p(len(text)), b.lines,
            text.endswith("."), text.endswith(":"), text[-1:].isdigit(), text[:1].islower(),
            (b.bbox[0] - margins.get(b.page, 0.0)) / width,
            abs((b.bbox[0] + b.bbox[2]) / 2 - width / 2) / width,
            b.bbox[1] / height,
            min(above / body, 10.0), min(below / body, 10.0),
            (b.font_size - prev.font_size) / body if prev is not None and prev.font_size and b.font_size else 0.0,
            (b.bold != prev.bold) if prev is not None else 0,
            bool(nxt is not None and nxt.kind == "text" and len(nxt.text.split()) > 30),
            style_count[style(b)] / pages,
            len(text_pages[_norm(text)]),
            b.kind == "title",
            b.heading_level if b.heading_level is not None else -1,
            b.region_class in ("title", "section-header"),
            bool(b.region_class),
            doc_numbered, b.page in skip, b.page == 1,
        ))
    return candidates, np.asarray(rows, dtype=np.float32)
