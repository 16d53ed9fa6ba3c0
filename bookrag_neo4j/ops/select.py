"""Selection operators (paper §5): Filter_Modal, Filter_Range, Select_by_Entity, Select_by_Section, and
Select_All (the no-selector ablation). Each narrows the scope to tree-node keys: the selectors with named Cypher
(:mod:`bookrag_neo4j.retrieval.subtrees`), the filters and Select_All over the scope's blocks as the process holds
them (kind, pages and reading order; :meth:`~bookrag_neo4j.retrieval.document_blocks.DocumentBlocks.filtered`).

Filters chain: each step adds its constraint to the :class:`~.values.NodeFilter` of the selection it reads,
and selects what the combined filter holds (kinds are alternatives; pages and sections all hold)::

    Filter_Range(type="page", value="3-10") -> Filter_Modal(type="table")   # the tables on pages 3-10
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace

from pydantic import BaseModel, ConfigDict

from ..errors import ModelError
from ..library.documents import Document
from ..llm.prompts import render_prompt
from ..retrieval import subtrees
from ..retrieval.planner_replies import SectionChoice
from .operator_registry import NoParams, RunContext, model_time, operator
from .values import Entities, NodeFilter, Question, Selection

log = logging.getLogger(__name__)

TOC_LIMIT = 400  # sections shown to the LLM for Select_by_Section
TOC_CHARS = 12_000  # and at most this much of their listing (~3 k tokens: small local models have 8 k)


class FilterParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: str  # page, section (Filter_Range); table, image, equation (Filter_Modal)
    value: str | None = None


async def _apply(ctx: RunContext, f: NodeFilter) -> list[str]:
    if f.top_sections and f.kinds is None:  # "which sections ...": the level-1 sections themselves
        return [t.key for t in await ctx.toc() if t.level == 1 and (f.within is None or t.key in f.within)
                and (f.page_from is None or (t.page_start or 0) >= f.page_from)
                and (f.page_to is None or (t.page_start or 0) <= f.page_to)]
    return await ctx.filtered(kinds=f.kinds, page_from=f.page_from, page_to=f.page_to, within=f.within)


@operator("Filter_Range", family="select", params=FilterParams)
async def filter_range(ctx: RunContext, p: FilterParams, previous: Selection | None) -> Selection:
    """Nodes within a page range ("3-10") or a section (title contains the value; no value: the top sections)."""
    f = previous.filter if previous and previous.filter else NodeFilter()
    if p.type == "page" and p.value:
        bounds = [int(x) for x in p.value.replace("–", "-").split("-") if x.strip().isdigit()]
        if bounds:
            f = replace(f, page_from=min(bounds), page_to=max(bounds))
    elif p.type == "section" and p.value:
        roots = subtrees.match_section_title(await ctx.toc(), p.value)
        subtree = await subtrees.select_by_section(ctx.db, roots)
        within = subtree if f.within is None else [k for k in f.within if k in set(subtree)]
        f = replace(f, within=tuple(within))
    elif p.type == "section":
        f = replace(f, top_sections=True)
    else:
        raise ValueError(f"Filter_Range filters by page or section, not {p.type!r}")
    return Selection(keys=await _apply(ctx, f), filter=f)


@operator("Filter_Modal", family="select", params=FilterParams)
async def filter_modal(ctx: RunContext, p: FilterParams, previous: Selection | None) -> Selection:
    """Nodes of a kind (table, image, equation), besides the kinds an earlier Filter_Modal admitted."""
    f = previous.filter if previous and previous.filter else NodeFilter()
    f = replace(f, kinds=(*(f.kinds or ()), p.type))
    return Selection(keys=await _apply(ctx, f), filter=f)


@operator("Select_by_Entity", family="select")
async def select_by_entity(ctx: RunContext, p: NoParams, entities: Entities) -> Selection:
    """Subtrees around the nodes GT-Linked to the linked entities, most specific first, within the budget."""
    s = ctx.settings
    return Selection(keys=await subtrees.select_by_entity(ctx.db, entities.seeds, depth=s.bookrag.section_depth,
                                                           budget=s.bookrag.selection_budget))


@operator("Select_by_Section", family="select")
async def select_by_section(ctx: RunContext, p: NoParams, question: Question) -> Selection:
    """Sections the LLM picks from the table of contents; offline, the sections around the blocks nearest to
    the question (their text) and the sections whose path matches it best (the titles: BM25 over the table of
    contents), united."""
    s = ctx.settings
    if ctx.llm is not None:
        sections = (await ctx.toc())[:TOC_LIMIT]
        if sections:
            lines = [f"{i}: {t.path} (p. {t.page_start})" for i, t in enumerate(sections)]
            while len(lines) > 1 and sum(len(line) + 1 for line in lines) > TOC_CHARS:
                lines.pop()
            prompt = render_prompt("select_sections", question=question.text, toc="\n".join(lines),
                                   max_sections=s.bookrag.max_sections)
            try:
                with model_time():
                    choice: SectionChoice = (await ctx.llm.complete(prompt, SectionChoice,
                                                                    stage="query.select")).value
                picked = [sections[i].key for i in choice.section_ids[:s.bookrag.max_sections] if 0 <= i < len(sections)]
                return Selection(keys=await subtrees.select_by_section(ctx.db, picked))
            except ModelError as exc:
                log.warning("section selection failed (%s); using the nearest blocks", exc)
    async def titled() -> list[str]:
        best = subtrees.toc_matches(await ctx.toc(), question.text, top=s.bookrag.max_sections)
        return await subtrees.select_by_section(ctx.db, best)

    async def nearest_in(doc: Document) -> list[tuple[str, float]]:
        return (await ctx.blocks(doc)).nearest(await ctx.similarities(doc, question.vector), s.bookrag.max_sections)

    async def nearest() -> list[str]:
        hits = [hit for found in await ctx.each_document(nearest_in) for hit in found]
        return await subtrees.subtrees_near(ctx.db, hits, top=s.bookrag.max_sections, depth=s.bookrag.section_depth)

    near, by_title = await asyncio.gather(nearest(), titled())
    return Selection(keys=list(dict.fromkeys([*near, *by_title])))


@operator("Select_All", family="select")
async def select_all(ctx: RunContext, p: NoParams) -> Selection:
    """Every content block of the scope (the no-selector ablation)."""
    return Selection(keys=await ctx.filtered())
