"""The section sources that :mod:`.detect` chooses from, in order of trust.

1. **The PDF outline** (3 entries or more): each bookmark starts at the block on its page that holds its title.
2. **LLM section filtering** (paper §4.2.2): candidates with their layout features go to the LLM in batches, each with
   the outline so far; it gives a level or -1 (not a section); a failed batch keeps the fallback's verdicts.
3. **The parser's heading levels** (MinerU's ``text_level``), renumbered 1, 2, 3 ...; a lone top-level title at the
   start is the document's title; where all share one level, numbering gives the levels.
4. **Offline detectors** (:mod:`.detect`): :mod:`.learned`, the region model, or :func:`from_typography`'s font sizes.

    headings = from_parser(load_mineru_output(Path("tests/fixtures/mineru_unnumbered")))   # MinerU's text_level
    [(h.level, h.title) for h in headings]   # [(1, 'Introduction'), (1, 'Background'), (2, 'Capacitive and ...'), ...]
"""
from __future__ import annotations

import difflib
import logging
import re
from collections import Counter
from typing import NamedTuple

from pydantic import BaseModel, Field

from ..errors import ModelError
from ..llm.chat import ChatModel
from ..llm.prompts import render_prompt
from ..parsing.blocks import Block, ParsedDocument
from ..parsing.page_rules import HEADING_SIZE_RATIO, body_font_size, numbering_depth, strip_numbering
from .features import toc_pages
from .model import Heading

log = logging.getLogger(__name__)

MIN_OUTLINE = 3
LLM_BATCH = 50
MIN_SCORE = 0.15  # a block the heading classifier rates this high goes to the LLM as a candidate


def _norm(text: str) -> str:
    return " ".join(re.sub(r"\W+", " ", strip_numbering(text).lower()).split())


def similarity(title: str, text: str) -> float:
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
            score = similarity(entry.title, b.text)
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


def has_parser_levels(doc: ParsedDocument) -> bool:
    """Whether the parser marked heading levels on its titles (MinerU does; PyMuPDF does not)."""
    return any(b.kind == "title" and b.heading_level for b in doc.blocks)


def from_parser(doc: ParsedDocument) -> list[Heading]:
    """Sections from the parser's heading levels (MinerU's ``text_level``); titles on contents pages skipped."""
    skip_pages = toc_pages(doc)
    raw = [(i, b.heading_level, b) for i, b in enumerate(doc.blocks)
           if b.kind == "title" and b.heading_level and b.heading_level >= 1 and b.page not in skip_pages]
    if not raw:
        return []
    given = Counter(level for _, level, _ in raw)
    numbered = sum(numbering_depth(b.text) is not None for _, _, b in raw) / len(raw)
    if len(given) == 1 and numbered >= 0.5:
        # One level for every title carries no hierarchy: the numbering does ("2.3 ..." is level 2); an unnumbered
        # title on the first page of a numbered document is title-page text, elsewhere ("References") level 1.
        raw = [(i, numbering_depth(b.text) or 1, b) for i, _, b in raw
               if not (b.page == 1 and numbering_depth(b.text) is None)]
    elif len(given) > 1:
        top = min(given)
        _, first_level, first = raw[0]
        if first_level == top and given[top] == 1 and first.page <= 2:  # the document's title above its sections
            raw = raw[1:]
    levels = {lvl: k + 1 for k, lvl in enumerate(sorted({lvl for _, lvl, _ in raw}))}
    return [Heading(i, min(levels[lvl], 6), b.text, b.page) for i, lvl, b in raw]


def from_typography(doc: ParsedDocument) -> list[Heading]:
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


def _toc_and_cover_pages(doc: ParsedDocument) -> set[int]:
    """Pages whose titles are not headings (to layout heuristics): table-of-contents pages and a cover page (the
    first page, when it has no paragraph of 40 words)."""
    pages = toc_pages(doc)
    if not any(len(b.text.split()) >= 40 for b in doc.blocks if b.page == 1):
        pages.add(1)
    return pages


class SectionVerdict(BaseModel):
    id: int
    level: int = Field(ge=-1, le=6, description="1 = top-level section, -1 = not a section")


class SectionFilterReply(BaseModel):
    """Reply to the ``section_filter`` prompt."""

    sections: list[SectionVerdict]


class LlmHeadings(NamedTuple):
    """LLM section filtering's headings, with how many of its batches failed (and kept the fallback's)."""

    headings: list[Heading]
    failed: int
    batches: int

    @property
    def fell_back(self) -> bool:
        """Whether every batch failed: the headings are the fallback's alone."""
        return self.batches > 0 and self.failed == self.batches


async def from_llm(doc: ParsedDocument, llm: ChatModel, *, batch_size: int = LLM_BATCH,
                   fallback: list[Heading] | None = None, scores: dict[int, float] | None = None,
                   ) -> LlmHeadings:
    """LLM section filtering: the headings, how many batches failed, of how many. A failed batch, and a candidate
    the reply leaves out, keeps the ``fallback`` verdict (default: the parser's levels, else the heuristics).
    ``scores``: the heading classifier's probability of each block position, shown to the LLM; a block the
    classifier rates at least ``MIN_SCORE`` is a candidate even when the parser did not mark it a title."""
    if fallback is None:
        fallback = from_parser(doc) if has_parser_levels(doc) else from_typography(doc)
    by_position = {h.position: h for h in fallback}
    scores = scores or {}
    candidates = [(i, b) for i, b in enumerate(doc.blocks) if b.kind == "title" or scores.get(i, 0.0) >= MIN_SCORE]
    body = body_font_size(doc.blocks)
    accepted: list[Heading] = []
    failed = 0
    for start in range(0, len(candidates), batch_size):
        batch = candidates[start:start + batch_size]
        lines = "\n".join(f"{i} | page {b.page} | {candidate_features(doc, b, body, scores.get(i))} | {b.text[:120]}"
                          for i, b in batch)
        so_far = "\n".join(f"{'  ' * (h.level - 1)}- [{h.level}] {h.title[:80]}" for h in accepted[-15:]) or "(none yet)"
        prompt = render_prompt("section_filter", title=doc.title, outline=so_far, candidates=lines)
        try:
            reply, _ = await llm.complete(prompt, SectionFilterReply, stage="index.section_filter")
        except ModelError as exc:
            log.warning("section filtering batch %d failed (%s); using the fallback levels", start // batch_size, exc)
            failed += 1
            accepted += [by_position[i] for i, _ in batch if i in by_position]
            continue
        verdicts = {v.id: v.level for v in reply.sections}
        for i, b in batch:
            level = verdicts.get(i)
            if level is None:
                if i in by_position:
                    accepted.append(by_position[i])
            elif level >= 1:
                accepted.append(Heading(i, level, b.text, b.page))
    return LlmHeadings(accepted, failed, -(-len(candidates) // batch_size))


def candidate_features(doc: ParsedDocument, block: Block, body: float, score: float | None = None) -> str:
    """A title candidate's layout features for the LLM, e.g. ``mineru level 2, box 72,88,300,108 on 612x792`` or
    ``size 14.0 (body 10.0), bold, classifier 0.91, box 72,88,300,108 on 612x792``: only what was measured."""
    features = []
    if block.heading_level:
        features.append(f"{doc.parser} level {block.heading_level}")
    if block.font_size:  # MinerU measures no fonts: no "size 0.0", no "regular"
        features += [f"size {block.font_size:.1f} (body {body:.1f})", "bold" if block.bold else "regular"]
        features += ["italic"] if block.italic else []
    if score is not None:
        features.append(f"classifier {score:.2f}")
    if any(block.bbox):
        box = ",".join(f"{v:.0f}" for v in block.bbox)
        size = doc.page_sizes.get(block.page)
        features.append(f"box {box} on {size[0]:.0f}x{size[1]:.0f}" if size else f"box {box}")
    return ", ".join(features) or "no layout features"
