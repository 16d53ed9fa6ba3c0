"""Operators over the layout layer (SuperRAG, paper §3.3 and §4): TOC_Search, Expand_Tables (with
self-reflection), Merge_Pages (the cross-page merge), Text2Cypher (through the read-only gate) and Concat.

    Embed -> Vector_Search(passage) ‖ Vector_Search(row) ‖ Lexical_Search(passage) -> Fuse(20)
    Fuse, TOC_Search -> Fetch(layout) -> Rerank(10) -> Expand_Tables(3) -> Concat <- Text2Cypher
    Concat -> Fetch_Evidence(layout) -> Merge_Pages
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ..db.queries import load_query
from ..db.schema_guide import text2cypher_labels, text2cypher_patterns
from ..db.vectors import use_plugin
from ..errors import ModelError, UserQueryError
from ..llm.prompts import render_prompt
from ..retrieval.reasoners import text_reasoning
from ..retrieval.subtrees import NodeRow
from ..retrieval.units import read_per_build
from ..text.grammar import quoted_section_title
from ..text.lexical import bm25_scores
from ..text.references import caption_pattern, mentions, pages
from .operator_registry import NoParams, RunContext, model_time, operator
from .reason import UnitCandidateRow, labelled
from .values import Candidates, EvidenceSet, Question, Ranking, Selection

log = logging.getLogger(__name__)


class TocSearchParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(min_length=1)
    sections: int = Field(3, ge=1)  # sections kept
    per_section: int = Field(2, ge=1)  # passages a section contributes
    k: int = Field(60, ge=1)  # reciprocal-rank fusion's constant


@dataclass(frozen=True, slots=True)
class Expansion:
    """A table or image a hit leads to (``superrag/expansion_candidates``): its key, and the hit's."""

    key: str
    hit: str


@dataclass(frozen=True, slots=True)
class RowTable:
    """A table row and its table (``layout/row_tables``)."""

    row: str
    table: str


@dataclass(frozen=True, slots=True)
class TocTitle:
    """A section as the ToC retriever reads it."""

    key: str
    path: str | None
    title: str | None


@dataclass(frozen=True)
class TocEntries:
    rows: list[TocTitle]
    vectors: np.ndarray  # unit title embeddings, one row a section (zeros without one)


def _toc(rows: list[dict[str, Any]]) -> TocEntries:
    """From ``superrag/toc_entries`` or ``toc_sections`` rows: key, path, title and embedding."""
    dim = next((len(r["embedding"]) for r in rows if r["embedding"]), 1)
    vectors = np.array([r["embedding"] or [0.0] * dim for r in rows], dtype=np.float32).reshape(len(rows), dim)
    return TocEntries([TocTitle(r["key"], r["path"], r["title"]) for r in rows], vectors)


class SectionChoice(BaseModel):
    section_ids: list[int] = Field(default_factory=list)


@operator("TOC_Search", family="search", params=TocSearchParams)
async def toc_search(ctx: RunContext, p: TocSearchParams, question: Question) -> Ranking:
    """The ToC retriever: the sections whose path fits the question (the paper's ToC prompt with an LLM; else the
    title embedding's cosine and BM25 over the paths, fused), and the passages within them most
    similar to the question as candidates."""
    rows, vectors, cosine = [], [], []
    in_server = await use_plugin(ctx.db, engine=ctx.settings.retrieval.vector_engine)
    for doc in ctx.documents:
        _, entries = await read_per_build(ctx.db, doc, "superrag/toc_entries" if in_server else
                                          "superrag/toc_sections", _toc)
        rows += entries.rows
        vectors.append(entries.vectors)
        if in_server:  # the titles scored where they are stored; a section without one scores 0, as a zero vector
            scored = dict(await ctx.db.read_rows("plugin/title_similarities", doc_key=doc.key,
                                                    embedding=list(map(float, question.vector))))
            cosine += [2.0 * scored[r.key] - 1.0 if r.key in scored else 0.0 for r in entries.rows]
    if not rows:
        return Ranking(keys=[])
    if not in_server:
        cosine = (np.vstack(vectors) @ np.asarray(question.vector)).tolist()
    chosen: list[str] = []
    if ctx.llm is not None:
        listing = "\n".join(f"{i}: {r.path or r.title}" for i, r in enumerate(rows[:400]))
        prompt = render_prompt("superrag_toc", question=p.question, toc=listing, max_sections=p.sections)
        try:
            with model_time():
                reply = (await ctx.llm.complete(prompt, SectionChoice, stage="superrag.toc")).value
            chosen = [rows[i].key for i in reply.section_ids if 0 <= i < len(rows)][:p.sections]
        except ModelError as exc:
            log.warning("ToC prompt failed (%s); ranking the ToC without the LLM", exc)
    if not chosen:
        lexical = bm25_scores(p.question, [r.path or r.title or "" for r in rows])
        fused = [0.0] * len(rows)
        for scores in (lexical, cosine):
            for rank, i in enumerate(sorted(range(len(rows)), key=lambda i: -scores[i]), 1):
                fused[i] += 1.0 / (p.k + rank)
        chosen = [rows[i].key for i in sorted(range(len(rows)), key=lambda i: -fused[i])[:p.sections]]
    passages = await ctx.db.read_rows("superrag/section_passages", keys=chosen, per=p.per_section,
                                         question_vector=question.vector)
    return Ranking(keys=list(dict.fromkeys(k for found in passages for k in found)))


class ExpandTablesParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(min_length=1)
    top: int = Field(3, ge=0)  # tables or diagrams kept (the paper's 3)
    reflect: bool = True  # decide first whether the question needs them (self-reflection)


class Reflection(BaseModel):
    needs_tables: bool = False


async def needs_tables(ctx: RunContext, question: str) -> bool:
    """Self-reflection: does the question need tables or diagrams? The LLM's yes or no; without an LLM (or when the
    prompt fails) yes, as the paper's setting 2: no offline rule was shown to help on both halves of both dev sets
    (docs/methods/superrag.md)."""
    if ctx.llm is None:
        return True
    try:
        with model_time():
            reply = await ctx.llm.complete(render_prompt("superrag_reflect", question=question), Reflection,
                                           stage="superrag.reflect")
        return reply.value.needs_tables
    except ModelError as exc:
        log.warning("reflection prompt failed (%s); expanding tables", exc)
        return True


@operator("Expand_Tables", family="search", params=ExpandTablesParams)
async def expand_tables(ctx: RunContext, p: ExpandTablesParams, ranking: Ranking, question: Question) -> Ranking:
    """The hits with at most ``top`` tables or images placed after the hit that led to them: those on a hit's
    pages, named by a block it covers (REFERS_TO), or a row's own table. With ``reflect``, only when the
    question needs them, and only those the reranker ranks among the hits (the score gate)."""
    if p.top == 0 or not ranking.keys or (p.reflect and not await needs_tables(ctx, p.question)):
        return ranking
    found = await ctx.db.read_rows_as(Expansion, "superrag/expansion_candidates", keys=ranking.keys)
    source = {r.key: r.hit for r in found if r.key not in ranking.keys}
    if not source:
        return ranking
    rows = await ctx.db.read_rows_as(UnitCandidateRow, "layout/unit_candidates", keys=[*ranking.keys, *source],
                                     question_vector=question.vector, max_chars=2000)
    candidates = Candidates(rows=await labelled(ctx, rows))
    with model_time():
        scores = await text_reasoning(question.text, candidates.rows, ctx.models.reranker)
    tables = sorted(source, key=lambda k: -scores.get(k, 0.0))
    if p.reflect:  # the gate: a table must score at least as well as the weakest hit
        floor = min(scores.get(k, 0.0) for k in ranking.keys)
        tables = [k for k in tables if scores.get(k, 0.0) >= floor]
    kept = set(tables[:p.top])
    keys: list[str] = []
    for hit in ranking.keys:
        keys += [hit, *[t for t in tables if t in kept and source[t] == hit]]
    return Ranking(keys=keys, graph=ranking.graph, text={**ranking.text, **{t: scores[t] for t in kept}})


_ENDS = tuple('.!?:"”’)]»')  # a text that ends in one of these has ended; otherwise it is cut mid-sentence


def continues(text: str, following: str) -> bool:
    """Whether ``following`` goes on with the sentence that ``text`` leaves unfinished: ``text`` has no closing
    punctuation and ``following`` opens in lower case, or ``text`` stops on a comma, semicolon or hyphen."""
    end, start = text.rstrip()[-1:], following.lstrip()[:1]
    return bool(end and start) and not end.endswith(_ENDS) and (start.islower() or end in ",;-–")


class MergePagesParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    max_chars: int = Field(6000, ge=100)  # text kept of a merged unit


@operator("Merge_Pages", family="evidence", params=MergePagesParams)
async def merge_pages(ctx: RunContext, p: MergePagesParams, evidence: EvidenceSet) -> EvidenceSet:
    """The cross-page merge: a passage cut by a page break (it ends mid-sentence and the next passage of its
    section goes on at the top of the next page) becomes one unit spanning both (its key and rank stay; the
    next passage is not repeated). A passage that ends where its text ends stays as it is."""
    passages = [n.key for n in evidence.nodes if n.kind == "passage"]
    rows = {r.key: r for r in await ctx.db.read_rows_as(NodeRow, "layout/units", keys=passages)} if passages else {}
    merged, taken = [], set()
    for node in evidence.nodes:
        if node.key in taken:  # merged into the hit before it
            continue
        taken.add(node.key)
        row = rows.get(node.key)
        nxt = row.next if row is not None else None
        if row is not None and nxt is not None and nxt.key not in taken and nxt.section == row.section \
                and nxt.page_start == node.page_end + 1 and continues(node.text, nxt.text or ""):
            pages = sorted(set(node.page_list or range(node.page_start, node.page_end + 1)) |
                           set(range(nxt.page_start, nxt.page_end + 1)))
            node = node.model_copy(update={"text": f"{node.text}\n{nxt.text}"[:p.max_chars],
                                           "page_end": nxt.page_end, "page_list": pages})
            taken.add(nxt.key)
        merged.append(node)
    return replace(evidence, nodes=merged)


class Text2CypherParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(min_length=1)
    mode: Literal["auto", "templates", "llm"] = "auto"  # auto: the LLM when there is one, else the templates


SCHEMA_SAMPLE = 1000  # nodes a label whose property keys the schema lists
HIDDEN_PROPERTIES = ["embedding", "title_embedding", "table_html", "bbox"]
SCHEMA_LABELS = text2cypher_labels()
SCHEMA_EDGES = text2cypher_patterns()


def template_query(question: str) -> tuple[str, dict] | None:
    """The offline text2Cypher: an intent template of ``cypher/superrag/`` with its parameters, or None."""
    if named := mentions(question):
        labels = {"table": ["Table"], "equation": ["Equation"]}.get(named[0].family, ["Image"])
        return "superrag/captioned", {"labels": labels, "pattern": caption_pattern(named[0])}
    if page := next((p for p in pages(question) if p.place >= 0), None):  # the last page's number is unknown here
        number = page.place or (int(page.label) if page.label.isdigit() else -1)
        return "superrag/page", {"page": page.label, "number": number}
    if title := quoted_section_title(question):
        return "superrag/section_titled", {"title": title}
    return None


async def schema_description(ctx: RunContext) -> str:
    """The graph schema as the text2Cypher prompt shows it: labels with their properties (read from a sample of
    each label's nodes in the database), then the relationship patterns."""
    if ctx.schema is None:
        rows = await ctx.db.read("superrag/schema_properties", labels=SCHEMA_LABELS, hidden=HIDDEN_PROPERTIES,
                                    sample=SCHEMA_SAMPLE)
        lines = [f"(:{r['label']} {{{', '.join(r['properties'])}}})" for r in rows]
        ctx.schema = "\n".join([*lines, *SCHEMA_EDGES])
    return ctx.schema


class CypherReply(BaseModel):
    cypher: str = ""


async def write_cypher(ctx: RunContext, question: str, mode: str = "auto") -> tuple[str, dict, str]:
    """The query for the question: (query text, parameters, source: "llm", "template <name>" or "none"). An LLM
    query that does not use ``$doc_keys`` is not run (the templates then answer)."""
    if ctx.llm is not None and mode != "templates":
        prompt = render_prompt("superrag_text2cypher", question=question, schema=await schema_description(ctx))
        try:
            with model_time():
                reply = (await ctx.llm.complete(prompt, CypherReply, stage="superrag.cypher")).value
            query = reply.cypher.strip().strip("`").removeprefix("cypher").strip()
            if query and "$doc_keys" in query:
                return query, {}, "llm"
        except ModelError as exc:
            log.warning("text2Cypher prompt failed (%s)", exc)
        if mode == "llm":
            return "", {}, "none"
    found = template_query(question)
    if found is None:
        return "", {}, "none"
    name, params = found
    return load_query(name), params, f"template {name}"


@dataclass(frozen=True)
class CypherRun:
    """What text2Cypher wrote for a question and what the gate let it return (``error``: refused or failed)."""

    question: str
    query: str
    parameters: dict[str, Any]
    source: str  # "llm", "template <name>" or "none"
    rows: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None


async def question_cypher(ctx: RunContext, question: str, mode: str = "auto") -> CypherRun:
    """Write the query for the question and run it: the LLM's through the read-only gate (100-row cap, the
    timeout), a template as the named read query it is (its regular expression is the product's own)."""
    query, params, source = await write_cypher(ctx, question, mode)
    if not query:
        return CypherRun(question, "", {}, source)
    if source.startswith("template "):  # the product's own named query: no gate, its own 100 rows at most
        rows = await ctx.db.read(source.removeprefix("template "), **params, doc_keys=ctx.scope)
        return CypherRun(question, query, params, source, rows=rows[:100])
    try:
        rows = await ctx.db.run_user_query(query, {**params, "doc_keys": ctx.scope}, max_rows=100)
    except UserQueryError as exc:  # refused by the gate, or invalid
        log.info("text2Cypher query (%s) did not run: %s", source, exc)
        return CypherRun(question, query, params, source, error=str(exc))
    return CypherRun(question, query, params, source, rows=rows)


@operator("Text2Cypher", family="search", params=Text2CypherParams)
async def text2cypher(ctx: RunContext, p: Text2CypherParams) -> Selection:
    """A read-only Cypher query for the question (the LLM over the schema, else an intent template: page N,
    Table/Figure N, section titled X; the LLM's through the read-only gate) with a row cap; the ``key`` column."""
    run = await question_cypher(ctx, p.question, p.mode)
    if not run.query:
        return Selection(keys=[], note="no query")
    if run.error is not None:  # no evidence, said in the trace
        return Selection(keys=[], note=f"{run.source} query refused: {run.error[:120]}")
    keys = [r["key"] for r in run.rows if isinstance(r.get("key"), str)]
    shown = run.source if run.source != "llm" else f"llm: {' '.join(run.query.split())[:160]}"
    return Selection(keys=list(dict.fromkeys(keys))[:10], note=shown)


@operator("Rows_To_Tables", family="rank")
async def rows_to_tables(ctx: RunContext, p: NoParams, ranking: Ranking) -> Ranking:
    """Each table row replaced by its table (first place kept): a row finds the table, the table is the unit."""
    tables = {r.row: r.table for r in await ctx.db.read_rows_as(RowTable, "layout/row_tables", keys=ranking.keys)}
    keys = list(dict.fromkeys(tables.get(k, k) for k in ranking.keys))
    best: dict[str, float] = {}
    for key, value in ranking.text.items():
        best[tables.get(key, key)] = max(value, best.get(tables.get(key, key), value))
    return Ranking(keys=keys, graph=ranking.graph, text=best)


class ConcatParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    top: int | None = Field(None, ge=1)


@operator("Concat", family="rank", params=ConcatParams)
async def concat(ctx: RunContext, p: ConcatParams, selections: list[Selection], rankings: list[Ranking]) -> Ranking:
    """The selections' keys, then the rankings' (each key once, first place kept), cut at ``top``."""
    keys = list(dict.fromkeys(k for found in [*(s.keys for s in selections), *(r.keys for r in rankings)]
                              for k in found))[:p.top]
    text = {k: v for r in rankings for k, v in r.text.items()}
    return Ranking(keys=keys, text={k: text[k] for k in keys if k in text})
