"""Search operators shared by the methods: Vector_Search and Lexical_Search per document (over blocks, or the
layout layer's passages and table rows), BM25 over a document's passages, Fuse (reciprocal-rank
fusion), Rerank, Expand (typed neighbours), TOC_Select, Graph_Rank
(PageRank over a whole document's graph) and Guarded_Read (Cypher through the read-only gate).

    Embed -> Vector_Search(over="block") ‖ Lexical_Search -> Fuse -> Fetch_Evidence      # hybrid search
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..db.client import KeyScore
from ..db.lucene import lucene_in_documents, lucene_terms
from ..db.vectors import vector_query
from ..llm.reranker import FusionReranker
from ..retrieval import subtrees
from ..retrieval.reasoners import bm25_by_document, choose_engine, entity_pagerank, text_reasoning
from ..retrieval.units import nearest_units, passage_lexicon, passage_texts
from ..text.lexical import bm25_scores
from .operator_registry import RunContext, model_time, operator
from .reason import with_similarities
from .values import Candidates, Entities, Question, Ranking, Selection

TOP_K = 10  # the paper's top-k for the baselines


@dataclass(frozen=True, slots=True)
class Neighbours:
    """A node and the nodes next to it in reading order (``retrieval/next_neighbours``)."""

    key: str
    neighbours: list[str]


class SearchParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    over: Literal["block", "passage", "row"] = "block"  # passage, row: the layout layer's, exact per document
    top: int = Field(TOP_K, ge=1)



def _best(scored: list[tuple[str, float]], top: int, *, by: Literal["text", "graph"] = "text") -> Ranking:
    """The ``top`` keys by score (a stable sort: ties keep their order), scores kept as ``by``."""
    best = sorted(scored, key=lambda x: -x[1])[:top]
    keys = [k for k, _ in best]
    return Ranking(keys=keys, text=dict(best)) if by == "text" else Ranking(keys=keys, graph=dict(best))


@operator("Vector_Search", family="search", params=SearchParams)
async def vector_search(ctx: RunContext, p: SearchParams, question: Question) -> Ranking:
    """Each document's blocks nearest to the question on the vector index, or its passages or table rows by exact
    cosine within the document; the best ``top``."""
    scored: list[tuple[str, float]] = []
    if p.over in ("passage", "row"):
        for doc in ctx.documents:
            scored += await nearest_units(ctx.db, doc, question.vector, kind=p.over, top=p.top,
                                          engine=ctx.settings.retrieval.vector_engine)
        return _best(scored, p.top)
    query = await vector_query(ctx.db, "retrieval/nearest_nodes", engine=ctx.settings.retrieval.vector_engine)
    for key in ctx.scope:
        rows = await ctx.db.read_as(KeyScore, query, doc_keys=[key], embedding=question.vector, top=p.top)
        scored += [(r.key, r.score) for r in rows]
    return _best(scored, p.top)


class BM25Params(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(min_length=1)
    top: int = Field(TOP_K, ge=1)


@operator("BM25", family="search", params=BM25Params)
async def bm25(ctx: RunContext, p: BM25Params) -> Ranking:
    """Okapi BM25 over each document's passages (the layout layer; IDF over the document), the best ``top``."""
    scored: list[tuple[str, float]] = []
    for doc in ctx.documents:
        keys, texts = await passage_texts(ctx.db, doc)
        scores = bm25_scores(p.question, texts)
        order = sorted(range(len(keys)), key=lambda i: -scores[i])[:p.top]
        scored += [(keys[i], scores[i]) for i in order]
    return _best(scored, p.top)


class LexicalParams(BM25Params):
    over: Literal["block", "passage"] = "block"  # passage: passages and table rows (index passage_text)


@operator("Lexical_Search", family="search", params=LexicalParams)
async def lexical_search(ctx: RunContext, p: LexicalParams) -> Ranking:
    """The blocks (or passages and table rows) the Neo4j full-text index ranks best for the question (Lucene,
    ``tree_node_text`` or ``passage_text``)."""
    if p.over == "passage":
        rows = await ctx.db.read_rows_as(KeyScore, "layout/lexical_units",
                                         query=lucene_in_documents(p.question, ctx.scope), top=p.top)
    else:
        rows = await ctx.db.read_as(KeyScore, "retrieval/lexical_nodes", query=lucene_terms(p.question),
                                    doc_keys=ctx.scope, top=p.top)
    return _best([(r.key, r.score) for r in rows], p.top)


class FuseParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    k: int = Field(60, ge=1)  # reciprocal-rank fusion's constant
    top: int = Field(20, ge=1)


@operator("Fuse", family="rank", params=FuseParams)
async def fuse(ctx: RunContext, p: FuseParams, rankings: list[Ranking]) -> Ranking:
    """Reciprocal-rank fusion of rankings: sum of 1 / (k + rank)."""
    fused: dict[str, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking.keys, 1):
            fused[key] = fused.get(key, 0.0) + 1.0 / (p.k + rank)
    return _best(list(fused.items()), p.top)


class TopParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    top: int = Field(TOP_K, ge=1)


class RerankParams(TopParams):
    # "offline": fuse the reranker's order with the input rankings' (RRF) when the reranker is the offline
    # fusion one (cosine + BM25 over the candidates alone, weaker than the first stage); "never": its order only
    fuse: Literal["never", "offline"] = "never"
    k: int = Field(60, ge=1)


@operator("Rerank", family="rank", params=RerankParams)
async def rerank(ctx: RunContext, p: RerankParams, candidates: Candidates, question: Question,
                 rankings: list[Ranking]) -> Ranking:
    """The candidates the configured reranker scores best for the question (with ``fuse="offline"`` and the
    offline reranker: fused with the order of the rankings the candidates came from)."""
    reranker = ctx.models.reranker
    if reranker.reads_similarities:  # the offline fusion reranker: BM25 with each document's passage statistics
        holding = {r.doc_key for r in candidates.rows}
        lexicons = {d.key: await passage_lexicon(ctx.db, d) for d in ctx.documents if d.key in holding}
        rows = await with_similarities(ctx, candidates.rows, question)  # units never embedded: in model time
        scores = await text_reasoning(question.text, rows, reranker,
                                      lexical=bm25_by_document(question.text, rows, lexicons))
    else:
        with model_time():
            scores = await text_reasoning(question.text, candidates.rows, reranker)
    if p.fuse == "offline" and isinstance(ctx.models.reranker, FusionReranker) and rankings:
        fused = {key: 0.0 for key in scores}
        for order in [sorted(scores, key=lambda k: -scores[k]), *(r.keys for r in rankings)]:
            for rank, key in enumerate((k for k in order if k in fused), 1):
                fused[key] += 1.0 / (p.k + rank)
        return _best([(k, fused[k]) for k in sorted(fused, key=lambda k: -fused[k])], p.top)
    return _best(list(scores.items()), p.top)


class ExpandParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    relation: Literal["next", "section"] = "next"  # reading-order neighbours, or the enclosing section
    budget: int = Field(50, ge=1)  # at most this many nodes in all


@operator("Expand", family="search", params=ExpandParams)
async def expand(ctx: RunContext, p: ExpandParams, ranking: Ranking | None, selection: Selection | None) -> Selection:
    """The nodes with their typed neighbours (NEXT on both sides, or their section's subtree), best first,
    while the total stays within ``budget``."""
    keys = ranking.keys if ranking is not None else selection.keys if selection is not None else []
    if p.relation == "next":
        rows = await ctx.db.read_rows_as(Neighbours, "retrieval/next_neighbours", keys=keys)
        around = {r.key: r.neighbours for r in rows}
    else:
        around = {k: await subtrees.subtrees_around(ctx.db, [k], depth=ctx.settings.bookrag.section_depth) for k in keys}
    chosen: dict[str, None] = {}
    for key in keys:
        group = [key, *around.get(key, [])]
        if chosen and len(chosen.keys() | set(group)) > p.budget:
            continue
        chosen.update(dict.fromkeys(group))
    return Selection(keys=list(chosen))


class TocParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(min_length=1)
    top: int = Field(3, ge=1)


@operator("TOC_Select", family="search", params=TocParams)
async def toc_select(ctx: RunContext, p: TocParams) -> Selection:
    """The subtrees of the sections whose path matches the question best (BM25 over the table of contents)."""
    best = subtrees.toc_matches(await ctx.toc(), p.question, top=p.top)
    return Selection(keys=await subtrees.select_by_section(ctx.db, best))


@operator("Graph_Rank", family="search", params=TopParams)
async def graph_rank(ctx: RunContext, p: TopParams, entities: Entities) -> Ranking:
    """Nodes by the summed personalized-PageRank scores of their entities over each document's whole graph
    (no selector: the GraphRanker baseline)."""
    s = ctx.settings
    engine, _why = await choose_engine(ctx.db, s.bookrag.ppr_engine, plugin=False)
    scored = [(node, float(scores[ents].sum()))
              for whole, scores in await entity_pagerank(ctx.db, ctx.documents, entities.seeds, engine=engine,
                                                         damping=s.bookrag.ppr_damping,
                                                         budget_bytes=s.bookrag.gds_projection_budget_mb * 2**20)
              for node, ents in whole.node_entities.items()]
    return _best([s for s in scored if s[1] > 0], p.top, by="graph")


class ReadParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str = Field(min_length=1)  # read-only Cypher; $doc_keys is the scope
    parameters: dict = Field(default_factory=dict)
    limit: int = Field(100, ge=1)


@operator("Guarded_Read", family="search", params=ReadParams)
async def guarded_read(ctx: RunContext, p: ReadParams) -> Selection:
    """Cypher a user or an LLM wrote, through the read-only gate: the ``key`` column of its first ``limit``
    rows, as a selection."""
    rows = await ctx.db.run_user_query(p.query, {**p.parameters, "doc_keys": ctx.scope})
    return Selection(keys=[r["key"] for r in rows[:p.limit] if isinstance(r.get("key"), str)])
