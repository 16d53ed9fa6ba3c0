"""SuperRAG (Yang et al., layout-aware graph modeling) and the ``hybrid`` baseline as plans over the shared operators.

- ``superrag`` (the paper's setting 3, Table 5): hybrid search, cross-page merge, ToC, table/diagram expansion with
  self-reflection, text2Cypher;
- ``superrag-no-reflect`` (2): the same without self-reflection (tables always expanded);
- ``superrag-no-tables``, ``superrag-no-toc``, ``superrag-no-cypher``: the full method less one part;
- ``superrag-hybrid`` (1): hybrid search (passages and table rows) and the cross-page merge;
- ``hybrid``: the baseline, Lucene + vector over passages, fused by RRF, no reranker.

They run on the layout layer (:mod:`bookrag_neo4j.layout.build`), built on first use (``prepare``) where missing. The
budgets are the paper's §5.2: 20 contexts from the hybrid search, 10 after reranking, at most 3 tables or diagrams: at
most 13 units, text2Cypher's hits first.
"""

from __future__ import annotations

from ..retrieval.plan import Plan, PlanStep
from ..retrieval.planner import Planner
from ..retrieval.planner_replies import QueryCategory
from .method_registry import method

CONTEXTS, RERANKED, TABLES = 20, 10, 3


def _hybrid_steps(question: str, *, rows: bool) -> list[PlanStep]:
    """Lucene and per-document vector search over passages (and table rows), fused by RRF."""
    steps = [PlanStep(id="embed", operator="Embed", params={"question": question}),
             PlanStep(id="vector", operator="Vector_Search", params={"over": "passage", "top": CONTEXTS},
                      after=["embed"]),
             PlanStep(id="lexical", operator="Lexical_Search",
                      params={"question": question, "over": "passage", "top": CONTEXTS})]
    if rows:
        steps.append(PlanStep(id="rows", operator="Vector_Search", params={"over": "row", "top": CONTEXTS},
                              after=["embed"]))
    steps.append(PlanStep(id="fuse", operator="Fuse", params={"top": CONTEXTS},
                          after=[s.id for s in steps if s.id != "embed"]))
    return steps


def _plan(method_name: str, question: str, steps: list[PlanStep], last: str, *, merge: bool = True) -> Plan:
    steps.append(PlanStep(id="evidence", operator="Fetch_Evidence", params={"unit": "layout"}, after=[last]))
    if merge:
        steps.append(PlanStep(id="merge", operator="Merge_Pages", after=["evidence"]))
    output = steps[-1].id
    steps.append(PlanStep(id="reduce", operator="Reduce", params={"question": question}, after=[output]))
    return Plan(question=question, method=method_name, category="single-hop", classified_by="method", steps=steps,
                output=output, answer="reduce")


def _superrag(name: str, question: str, *, toc: bool, reflect: bool | None, cypher: bool) -> Plan:
    steps = _hybrid_steps(question, rows=True)
    pool = ["fuse", "embed"]
    if toc:
        steps.append(PlanStep(id="toc", operator="TOC_Search", params={"question": question}, after=["embed"]))
        pool.append("toc")
    steps += [PlanStep(id="fetch", operator="Fetch", params={"unit": "layout"}, after=pool),
              PlanStep(id="rerank", operator="Rerank", params={"top": RERANKED + 10, "fuse": "offline"},
                       after=["fetch", "embed", "fuse"]),
              PlanStep(id="units", operator="Rows_To_Tables", after=["rerank"]),
              PlanStep(id="top", operator="Concat", params={"top": RERANKED}, after=["units"])]
    last = "top"
    if reflect is not None:
        steps.append(PlanStep(id="tables", operator="Expand_Tables",
                              params={"question": question, "top": TABLES, "reflect": reflect},
                              after=["top", "embed"]))
        last = "tables"
    if cypher:
        steps += [PlanStep(id="cypher", operator="Text2Cypher", params={"question": question}),
                  PlanStep(id="concat", operator="Concat", params={"top": RERANKED + TABLES},
                           after=["cypher", last])]
        last = "concat"
    return _plan(name, question, steps, last)


@method("superrag", "SuperRAG: hybrid search, cross-page merge, ToC, table expansion with self-reflection, "
        "text2Cypher (layout layer)", needs="layout")
async def superrag(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
    llm = planner.llm is not None  # LLM-free: no ToC retriever, no self-reflection (docs/methods/superrag.md)
    return _superrag("superrag", question, toc=llm, reflect=llm, cypher=True)


@method("superrag-no-reflect", "SuperRAG without self-reflection: tables always expanded (the paper's setting 2)",
        needs="layout", ablates="superrag")
async def superrag_no_reflect(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
    return _superrag("superrag-no-reflect", question, toc=planner.llm is not None, reflect=False, cypher=True)


@method("superrag-no-tables", "SuperRAG without table and diagram expansion", needs="layout",
        ablates="superrag")
async def superrag_no_tables(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
    return _superrag("superrag-no-tables", question, toc=planner.llm is not None, reflect=None, cypher=True)


@method("superrag-no-toc", "SuperRAG without the table-of-contents retriever", needs="layout",
        ablates="superrag")
async def superrag_no_toc(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
    return _superrag("superrag-no-toc", question, toc=False, reflect=planner.llm is not None, cypher=True)


@method("superrag-no-cypher", "SuperRAG without text2Cypher", needs="layout", ablates="superrag")
async def superrag_no_cypher(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
    llm = planner.llm is not None
    return _superrag("superrag-no-cypher", question, toc=llm, reflect=llm, cypher=False)


@method("superrag-hybrid", "SuperRAG's non-layout setting 1: hybrid search over passages and table rows, reranked, "
        "cross-page merge", needs="layout", ablates="superrag")
async def superrag_hybrid(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
    return _superrag("superrag-hybrid", question, toc=False, reflect=None, cypher=False)


@method("hybrid", "Lucene + per-document vector search over passages, fused by RRF", baseline=True, needs="layout")
async def hybrid(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
    steps = _hybrid_steps(question, rows=False)
    steps.append(PlanStep(id="top", operator="Concat", params={"top": RERANKED}, after=["fuse"]))
    return _plan("hybrid", question, steps, "top", merge=False)
