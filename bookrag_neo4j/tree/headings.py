"""Which blocks start sections, and at which level.

Three sources, in order of trust:

1. **The PDF outline** (bookmarks written by the author), when it has at least 3 entries: each entry is matched
   to the block on its page whose text is its title (nearest the bookmark's position); when no block matches,
   the section starts at the bookmark's position.
2. **LLM section filtering** (paper §4.2.2): title candidates with their layout features go to the LLM in
   batches; each batch carries the outline found so far; the reply gives each candidate a level or -1 ("not a
   section", it stays text). A failed batch falls back to the heuristics.
3. **Layout heuristics**: candidates larger than body text are ranked into levels by font size; numbering
   ("2.3.1 ...", "Chapter 4", "Appendix A") gives the level where most candidates are numbered; a single
   largest title on the first pages is the document's title, not a section.
"""

from __future__ import annotations

import difflib
import logging
import re
from collections import Counter
from dataclasses import dataclass

from pydantic import BaseModel, Field

from ..errors import ModelError
from ..llm.chat import ChatModel
from ..llm.prompts import render_prompt
from ..parsing.blocks import Block, ParsedDocument
from ..parsing.layout import HEADING_SIZE_RATIO, body_font_size, numbering_depth, strip_numbering

log = logging.getLogger(__name__)

MIN_OUTLINE = 3
LLM_BATCH = 50


@dataclass(frozen=True)
class Heading:
    """A section start: before block ``position``; ``consumes`` when that block is the heading's own text."""

    position: int
    level: int
    title: str
    page: int
    consumes: bool = True


def _norm(text: str) -> str:
    return " ".join(re.sub(r"\W+", " ", strip_numbering(text).lower()).split())


def _similarity(title: str, text: str) -> float:
    a, b = _norm(title), _norm(text)
    if not a or not b:
        return 0.0
    if a == b:
        return 1.0
    return difflib.SequenceMatcher(None, a, b[: len(a) + 10]).ratio()


def from_outline(doc: ParsedDocument) -> list[Heading]:
    by_page: dict[int, list[int]] = {}
    for i, b in enumerate(doc.blocks):
        by_page.setdefault(b.page, []).append(i)
    headings: list[Heading] = []
    cursor = 0
    for entry in doc.outline:
        page = min(max(entry.page, 1), doc.page_count)
        best, best_score = None, 0.0
        for i in by_page.get(page, []):
            b = doc.blocks[i]
            if i < cursor or b.kind not in ("title", "text", "list"):
                continue
            score = _similarity(entry.title, b.text)
            if entry.y is not None:
                score -= abs(b.bbox[1] - entry.y) / 2000
            if score > best_score:
                best, best_score = i, score
        if best is not None and best_score >= 0.75:
            own = len(_norm(doc.blocks[best].text)) <= len(_norm(entry.title)) + 15
            headings.append(Heading(best, entry.level, entry.title, page, consumes=own))
            cursor = best + 1 if own else best
            continue
        later = [i for p in range(page, doc.page_count + 1) for i in by_page.get(p, []) if i >= cursor
                 and (p > page or entry.y is None or doc.blocks[i].bbox[1] >= entry.y - 5)]
        position = later[0] if later else len(doc.blocks)
        headings.append(Heading(position, entry.level, entry.title, page, consumes=False))
        cursor = position
    return headings


def from_layout(doc: ParsedDocument) -> list[Heading]:
    body = body_font_size(doc.blocks)
    skip_pages = _toc_and_cover_pages(doc)
    candidates = [(i, b) for i, b in enumerate(doc.blocks) if b.kind == "title" and b.page not in skip_pages]
    if not candidates:
        return []
    size = {i: round(b.font_size * 2) / 2 for i, b in candidates}
    tiers = sorted({s for s in size.values() if s >= body * HEADING_SIZE_RATIO}, reverse=True)
    counts = Counter(size.values())
    # a size used for more titles than there are pages is labels or table text, not headings
    tiers = [s for s in tiers if counts[s] <= max(doc.page_count, 10)]
    tier_level = {s: k + 1 for k, s in enumerate(tiers)}
    bold_level = len(tiers) + 1
    numbered = sum(numbering_depth(b.text) is not None for _, b in candidates) / len(candidates)
    # in documents that number their headings, a bold line at body size is a heading only when numbered too
    bold_alone = numbered < 0.5
    raw: list[tuple[int, int, Block]] = []
    for i, b in candidates:
        depth = numbering_depth(b.text)
        if size[i] not in tier_level and not ((b.bold or depth is not None) and (bold_alone or depth is not None)
                                              and counts[size[i]] <= 2 * doc.page_count):
            continue
        if b.page == 1 and depth is None and numbered >= 0.5:  # title-page text of a numbered document
            continue
        level = depth if depth is not None and numbered >= 0.5 else tier_level.get(size[i], bold_level)
        raw.append((i, level, b))
    if tiers and counts[tiers[0]] == 1:  # one largest title at the start: the document's title
        raw = [r for r in raw if not (size[r[0]] == tiers[0] and r[2].page <= 2 and numbering_depth(r[2].text) is None)]
    levels = {lvl: k + 1 for k, lvl in enumerate(sorted({lvl for _, lvl, _ in raw}))}
    return [Heading(i, min(levels[lvl], 6), b.text, b.page) for i, lvl, b in raw]


_ENDS_WITH_PAGE = re.compile(r"\s\.?\s*[\dixv]{1,4}\s*$")


def _toc_and_cover_pages(doc: ParsedDocument) -> set[int]:
    """Pages whose titles are not headings: table-of-contents pages (five or more lines ending in a page
    number) and a cover page (the first page, when it has no paragraph of 40 words)."""
    ends: Counter[int] = Counter(b.page for b in doc.blocks if b.kind in ("title", "text", "list")
                                 and len(b.text) < 150 and _ENDS_WITH_PAGE.search(b.text))
    pages = {page for page, n in ends.items() if n >= 5}
    if not any(len(b.text.split()) >= 40 for b in doc.blocks if b.page == 1):
        pages.add(1)
    return pages


class SectionVerdict(BaseModel):
    id: int
    level: int = Field(ge=-1, le=6, description="1 = top-level section, -1 = not a section")


class SectionFilterReply(BaseModel):
    """Reply to the ``section_filter`` prompt."""

    sections: list[SectionVerdict]


async def from_llm(doc: ParsedDocument, llm: ChatModel, *, batch_size: int = LLM_BATCH) -> tuple[list[Heading], int]:
    """LLM section filtering; returns the headings and how many batches fell back to the heuristics."""
    fallback = {h.position: h for h in from_layout(doc)}
    candidates = [(i, b) for i, b in enumerate(doc.blocks) if b.kind == "title"]
    body = body_font_size(doc.blocks)
    accepted: list[Heading] = []
    failed = 0
    for start in range(0, len(candidates), batch_size):
        batch = candidates[start:start + batch_size]
        lines = "\n".join(
            f"{i} | page {b.page} | size {b.font_size:.1f} (body {body:.1f}) | {'bold' if b.bold else 'regular'} | "
            f"{b.text[:120]}" for i, b in batch
        )
        so_far = "\n".join(f"{'  ' * (h.level - 1)}- [{h.level}] {h.title[:80]}" for h in accepted[-15:]) or "(none yet)"
        prompt = render_prompt("section_filter", title=doc.title, outline=so_far, candidates=lines)
        try:
            reply, _ = await llm.complete(prompt, SectionFilterReply, stage="index.section_filter")
        except ModelError as exc:
            log.warning("section filtering batch %d failed (%s); using layout heuristics", start // batch_size, exc)
            failed += 1
            accepted += [fallback[i] for i, _ in batch if i in fallback]
            continue
        verdicts = {v.id: v.level for v in reply.sections}
        for i, b in batch:
            level = verdicts.get(i)
            if level is None:
                if i in fallback:
                    accepted.append(fallback[i])
            elif level >= 1:
                accepted.append(Heading(i, level, b.text, b.page))
    return accepted, failed


async def detect_headings(doc: ParsedDocument, llm: ChatModel | None = None) -> tuple[list[Heading], str, int]:
    """Headings, their source (``outline``/``llm``/``heuristic``), and the count of failed LLM batches."""
    if len(doc.outline) >= MIN_OUTLINE:
        return from_outline(doc), "outline", 0
    if llm is not None:
        headings, failed = await from_llm(doc, llm)
        return headings, "llm", failed
    return from_layout(doc), "heuristic", 0
