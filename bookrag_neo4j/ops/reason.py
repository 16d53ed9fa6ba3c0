"""Reasoning and ranking operators (paper §5): Fetch the selected blocks, Graph_Reasoning (personalized
PageRank from the linked entities), Text_Reasoning (the reranker), Skyline_Ranker, and Top_K (one score).

    Fetch <- selections, question -> Graph_Reasoning <- entities  ‖  Text_Reasoning -> Skyline_Ranker
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ..library.documents import Document
from ..retrieval.document_blocks import DocumentBlocks
from ..retrieval.entity_graph import best_first
from ..retrieval.reasoners import MAX_TEXT_CHARS, bm25_by_document, node_text, reason_on_graph, text_reasoning
from ..retrieval.units import TableRows, row_similarities, table_rows
from .operator_registry import NoParams, RunContext, model_time, operator
from .skyline import skyline, spanned
from .values import Candidate, Candidates, Entities, Question, Ranking, Scores, Selection


class FetchParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    unit: Literal["node", "layout"] = "node"  # layout: passages and table rows too
    widen: bool = True  # a selection too small to fill the Skyline gives way to the scope (not for filters)
    fill: bool = False  # filters too narrow to fill the Skyline are joined by the rest of their page range


@operator("Fetch", family="reason", params=FetchParams)
async def fetch(ctx: RunContext, p: FetchParams, selections: list[Selection], rankings: list[Ranking],
                question: Question) -> Candidates:
    """The selected content blocks (the union of the selections and rankings it reads; ``layout``: passages and
    table rows too) as the reasoners read them, with each one's similarity to the question from its stored
    embedding; blocks in reading order (``layout``: in the order they were found). A selection also takes the
    blocks the question names by number ("figure 3", :meth:`~bookrag_neo4j.retrieval.document_blocks.DocumentBlocks.named`)
    and each document's own best blocks (:func:`first_stage`); selected blocks on fewer distinct pages than the Skyline's
    minimum units (``BOOKRAG_SKYLINE_MIN``), an empty selection included, give way to every content block of
    the scope. ``fill`` (a global question's filters, not widened): filtered blocks on fewer pages than that
    minimum are joined by every block of their page range (the scope without a range), which Top_K ranks after
    them (:func:`top_k`): a chart drawn as vector text is no image, and "how many charts ..." must not come back
    empty."""
    keys = list(dict.fromkeys(k for found in [*(s.keys for s in selections), *(r.keys for r in rankings)]
                              for k in found))
    if p.unit == "layout":
        rows = await ctx.db.read_rows_as(UnitCandidateRow, "layout/unit_candidates", keys=keys,
                                         question_vector=question.vector, max_chars=MAX_TEXT_CHARS)
        position = {k: i for i, k in enumerate(keys)}  # the order they were found in, whatever the server's
        rows.sort(key=lambda r: position[r.key])  # (ties downstream are broken by it: the same run twice)
        return Candidates(rows=await labelled(ctx, rows))
    blocks = await ctx.each_document(ctx.blocks)
    by_document = {doc.key: held for doc, held in zip(ctx.documents, blocks, strict=True)}

    async def candidates(wanted: list[str] | None) -> list[Candidate]:
        """The blocks among ``wanted`` (None: every block) with their similarities, which are computed (in Neo4j)
        only for the documents holding one of them."""
        async def of(doc: Document) -> list[Candidate]:
            held = by_document[doc.key]
            mine = held.keys if wanted is None else [k for k in wanted if k in held.nodes]
            return held.candidates(mine, await ctx.similarities(doc, question.vector)) if mine else []
        return [c for found in await ctx.each_document(of) for c in found]

    if p.widen and selections:
        top = ctx.settings.bookrag.selection_hits
        for doc, held in zip(ctx.documents, blocks, strict=True):
            keys += named(ctx, doc, held, question) + (await first_stage(
                ctx, doc, held, question, await ctx.similarities(doc, question.vector), top) if top else [])
        keys = list(dict.fromkeys(keys))
    found = await candidates(keys)
    few = len({(c.doc_key, c.page_start) for c in found}) < ctx.settings.bookrag.skyline_min  # too little for the Skyline
    if few and p.widen and selections:
        found = await candidates(None)
    elif few and p.fill and (f := next((s.filter for s in selections if s.filter), None)) is not None:
        chosen = set(keys)
        found += await candidates([k for k in await ctx.filtered(page_from=f.page_from, page_to=f.page_to)
                                   if k not in chosen])
    return Candidates(rows=sorted(found, key=lambda c: (c.doc_key, c.order)))


async def first_stage(ctx: RunContext, doc: Document, blocks: DocumentBlocks, question: Question,
                      similarities: np.ndarray, top: int) -> list[str]:
    """The document's own best blocks, which join a selection (``BOOKRAG_SELECTION_HITS``): the ``top`` by BM25
    and by cosine (:meth:`~bookrag_neo4j.retrieval.document_blocks.DocumentBlocks.first_stage`), and the tables whose
    best row (as Text_Reasoning reads it) is among the ``top`` by either. A selection says where to look; it must
    not hide what the whole document's search finds first."""
    found = blocks.first_stage(question.text, similarities, top)
    engine = ctx.settings.retrieval.vector_engine
    tables = await table_rows(ctx.db, doc, engine=engine)
    held = [k for k in tables.spans if k in blocks.nodes]
    if held:
        lexical, similarity = tables.best(held, table_heads(tables, [blocks.nodes[k] for k in held]), question.text,
                                          question.vector, blocks.stats,
                                          scored=await row_similarities(ctx.db, doc, tables, question.vector,
                                                                        engine=engine))
        cosine = np.array([-1.0 if s is None else s for s in similarity])
        found += [held[i] for i in best_first(np.asarray(lexical), top) if lexical[i] > 0]
        found += [held[i] for i in best_first(cosine, top) if cosine[i] >= 0]
    return found


def table_heads(tables: TableRows, nodes: list[Candidate]) -> list[str]:
    """What a table's rows are read after: their heading (section path > caption or lead-in) and the table's
    label."""
    return [f"{tables.headings[n.key]} {n.label}" for n in nodes]


@dataclass(frozen=True, slots=True)
class UnitCandidateRow:
    """A passage, table row or tree node as ``layout/unit_candidates`` returns it: what the reasoners read, its
    similarity to the question, and ``first``, the block it starts with (whose label it takes)."""

    key: str
    doc_key: str
    order: int | None
    title: str | None
    section_path: str | None
    text: str | None
    page_start: int | None
    page_end: int | None
    first: str | None
    similarity: float | None


async def labelled(ctx: RunContext, rows: list[UnitCandidateRow]) -> list[Candidate]:
    """Candidates from ``layout/unit_candidates`` rows, each with the label of the block it starts with
    (:func:`bookrag_neo4j.retrieval.document_blocks.labels`: the short naming line above it in its section)."""
    holding = {r.doc_key for r in rows}
    nodes = {d.key: (await ctx.blocks(d)).nodes for d in ctx.documents if d.key in holding}

    def label(row: UnitCandidateRow) -> str:
        first = nodes.get(row.doc_key, {}).get(row.first or row.key)
        return first.label if first is not None else ""

    return [Candidate(key=r.key, doc_key=r.doc_key, order=r.order or 0, title=r.title or "",
                      section_path=r.section_path or "", text=r.text or "", similarity=r.similarity,
                      page_start=r.page_start or 0, page_end=r.page_end or 0, label=label(r))
            for r in rows]


@operator("Graph_Reasoning", family="reason")
async def graph_reasoning_op(ctx: RunContext, p: NoParams, candidates: Candidates, entities: Entities) -> Scores:
    """Each candidate's score from the personalized-PageRank scores of its entities (the documents' whole graphs,
    seeded by the linked entities): on GDS where the server has it, else in-process (``BOOKRAG_PPR_ENGINE``);
    the trace records the engine that ran."""
    holding = {r.doc_key for r in candidates.rows}  # only these documents' graphs are needed
    s = ctx.settings
    values, engine = await reason_on_graph(ctx.db, candidates.keys, entities.seeds, configured=s.bookrag.ppr_engine,
                                           node_score=s.bookrag.ppr_node_score, damping=s.bookrag.ppr_damping,
                                           budget_bytes=s.bookrag.gds_projection_budget_mb * 2**20,
                                           documents=[d for d in ctx.documents if d.key in holding])
    return Scores(by="graph", values=values, engine=engine)


@operator("Text_Reasoning", family="reason")
async def text_reasoning_op(ctx: RunContext, p: NoParams, candidates: Candidates, question: Question) -> Scores:
    """Each candidate's reranker score against the question (read with its label, see
    :func:`bookrag_neo4j.retrieval.document_blocks.labels`); the offline fusion reranker's BM25 with each document's
    statistics, and a block's two ranks taken among every block of the documents the candidates are from (its
    score does not depend on what was selected with it). A block the question names by number ("figure 3",
    "Table II") scores 1 more than its score: first, whatever the words of its caption
    (:meth:`~bookrag_neo4j.retrieval.document_blocks.DocumentBlocks.named`)."""
    reranker = ctx.models.reranker
    if not reranker.reads_similarities:
        with model_time():
            values = await text_reasoning(question.text, candidates.rows, reranker)
        return await named_first(ctx, question, values)
    rows = list(await with_similarities(ctx, candidates.rows, question))  # a copy: a table may take its best row
    lexical = [0.0] * len(rows)
    populations: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # each document's blocks' similarities and BM25
    for doc in ctx.documents:
        where = [i for i, c in enumerate(rows) if c.doc_key == doc.key]
        if where:
            blocks = await ctx.blocks(doc)
            mine = [rows[i] for i in where]
            if all(c.key in blocks.rows for c in mine):
                found = blocks.bm25(question.text, [c.key for c in mine])
                similarities = await ctx.similarities(doc, question.vector)
                if (population := blocks.population(question.text, similarities)) is not None:
                    populations[doc.key] = population
            else:  # the layout layer's passages and table rows: ranked among the candidates
                found = bm25_by_document(question.text, mine, {doc.key: blocks.stats})
            for i, score in zip(where, found, strict=True):
                lexical[i] = score
            engine = ctx.settings.retrieval.vector_engine
            tables = await table_rows(ctx.db, doc, engine=engine)
            held = [i for i in where if rows[i].key in tables.spans]
            if held:
                names = [rows[i].key for i in held]
                best_lexical, best_similarity = tables.best(
                    names, table_heads(tables, [rows[i] for i in held]), question.text, question.vector, blocks.stats,
                    scored=await row_similarities(ctx.db, doc, tables, question.vector, engine=engine))
                for i, lex, sim in zip(held, best_lexical, best_similarity, strict=True):
                    rows[i], lexical[i] = by_best_row(rows[i], lexical[i], lex, sim)
    population = None  # blocks: ranked among every block of the documents they are from, not among each other
    if rows and len(populations) == len({c.doc_key for c in rows}):
        similarities, bm25 = zip(*populations.values(), strict=True)
        population = (np.concatenate(similarities), np.concatenate(bm25))
    return await named_first(ctx, question, await text_reasoning(question.text, rows, reranker, lexical=lexical,
                                                                 population=population))


async def named_first(ctx: RunContext, question: Question, values: dict[str, float]) -> Scores:
    """The text scores ``values``, 1 added to those of the blocks the question names by number (which thus rank
    first; the trace counts them); the best of each name's blocks by text score leads (the Skyline keeps it)."""
    groups = [[key for key in group if key in values] for doc in ctx.documents for group in
              (await ctx.blocks(doc)).named_groups(question.text, ctx.glossary(doc).titles(question.text))]
    found = list(dict.fromkeys(key for group in groups for key in group))
    leads = list(dict.fromkeys(max(group, key=lambda key: values[key]) for group in groups if group))
    first = set(found)
    return Scores(by="text", values={k: v + 1.0 if k in first else v for k, v in values.items()}, named=found,
                  leads=leads)


def named(ctx: RunContext, doc: Document, held: DocumentBlocks, question: Question) -> list[str]:
    """The blocks of ``doc`` (``held``) the question names: a figure or table by number, a page, or a statement of
    its domain packs' glossary (:meth:`~bookrag_neo4j.retrieval.document_blocks.DocumentBlocks.named`)."""
    return held.named(question.text, ctx.glossary(doc).titles(question.text))


def by_best_row(table: Candidate, lexical: float, row_lexical: float, row_similarity: float | None,
                ) -> tuple[Candidate, float]:
    """A table block with the BM25 and similarity of its best row where they beat the whole table's: a row (the
    layout layer's header + row, read with the table's section path, label and caption or lead-in;
    :meth:`~bookrag_neo4j.retrieval.units.TableRows.best`) holds what a question asks of a table, where the block's
    embedding covers only its first few hundred tokens and BM25's length norm discounts a long table for holding
    the question's terms in one row."""
    similarity = table.similarity if row_similarity is None else max(table.similarity or 0.0, row_similarity)
    return table.with_similarity(similarity), max(lexical, row_lexical)


async def with_similarities(ctx: RunContext, rows: list[Candidate], question: Question) -> list[Candidate]:
    """The candidates, those without a stored embedding (a block without text: an image without a caption)
    given the similarity of their :func:`node_text` to the question, embedded now (model time), on the same
    (1 + cos) / 2 scale as the others'."""
    missing = [i for i, c in enumerate(rows) if c.similarity is None]
    if not missing:
        return rows
    with model_time():
        vectors = np.asarray(await ctx.models.embedder.embed([node_text(rows[i]) for i in missing]), dtype=np.float64)
    query = np.asarray(question.vector, dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1) * (np.linalg.norm(query) or 1.0)
    cosine = vectors @ query / np.where(norms > 0, norms, 1.0)
    found = list(rows)
    for i, value in zip(missing, cosine.tolist(), strict=True):
        found[i] = replace(rows[i], similarity=(1.0 + value) / 2.0)
    return found


def _by(scores: list[Scores], name: str) -> dict[str, float]:
    return next((s.values for s in scores if s.by == name), {})


def _pages(candidates: Candidates) -> dict[str, tuple[str, int, int]]:
    return {c.key: (c.doc_key, c.page_start, c.page_end) for c in candidates.rows}


def _content(candidates: Candidates) -> Callable[[str], tuple[str, str] | None]:
    """A candidate's text as the Skyline compares repeats: its document and its words, lower-cased (None
    without text). Asked of the few keys the Skyline considers: the words of every block of a widened selection
    would cost more than the ranking."""
    rows = {c.key: c for c in candidates.rows}

    def content(key: str) -> tuple[str, str] | None:
        words = " ".join(rows[key].text.lower().split())
        return (rows[key].doc_key, words) if words else None
    return content


def _ranking(units: list[list[str]], **scores: dict[str, float]) -> Ranking:
    return Ranking(keys=[u[0] for u in units], merged={u[0]: u[1:] for u in units if len(u) > 1}, **scores)


@operator("Skyline_Ranker", family="rank")
async def skyline_ranker(ctx: RunContext, p: NoParams, candidates: Candidates, scores: list[Scores]) -> Ranking:
    """The candidates no other beats on both graph and text score (the Pareto front) and the best block of each
    name the question gives (a figure, a page, a statement), backfilled by fused rank to the minimum, capped;
    nodes on a kept unit's pages are merged into it."""
    graph, text = _by(scores, "graph"), _by(scores, "text")
    units = skyline([(k, graph.get(k, 0.0), text.get(k, 0.0)) for k in candidates.keys],
                    minimum=ctx.settings.bookrag.skyline_min, maximum=ctx.settings.bookrag.skyline_max,
                    pages=_pages(candidates),
                    content=_content(candidates), leads=next((s.leads for s in scores if s.by == "text"), ()))
    return _ranking(units, graph=graph, text=text)


class TopKParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    by: Literal["graph", "text"]
    k: int | None = Field(None, ge=1)  # default: the budget's
    budget: Literal["skyline", "global"] = "skyline"  # BOOKRAG_SKYLINE_MIN units, or BOOKRAG_GLOBAL_MAX_NODES


@operator("Top_K", family="rank", params=TopKParams)
async def top_k(ctx: RunContext, p: TopKParams, candidates: Candidates, scores: list[Scores],
                selection: Selection | None) -> Ranking:
    """The best k candidates by one reasoner's score (the one-reasoner ablations; a global question's filtered
    nodes), units as the Skyline's. With a ``selection`` (a global question's filters), its candidates come
    first; the others (a filled Fetch's rest of the page range) add units up to the Skyline's minimum."""
    values = _by(scores, p.by)
    k = p.k or (ctx.settings.bookrag.skyline_min if p.budget == "skyline" else ctx.settings.bookrag.global_max_nodes)
    pages, content = _pages(candidates), _content(candidates)

    def best(keys: list[str], n: int) -> list[list[str]]:
        return skyline([(key, values.get(key, 0.0), values.get(key, 0.0)) for key in keys], minimum=n, maximum=n,
                       pages=pages, content=content) if n > 0 else []

    chosen = set(selection.keys) if selection is not None else None
    units = best([key for key in candidates.keys if chosen is None or key in chosen], k)
    if chosen is not None:
        shown = {place for unit in units for key in unit for place in spanned(pages, key)}
        rest = [key for key in candidates.keys if key not in chosen and pages[key][:2] not in shown]
        units += best(rest, min(k, ctx.settings.bookrag.skyline_min) - len(units))
    return _ranking(units, **{p.by: values})
