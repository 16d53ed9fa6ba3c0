"""The paper's baselines as methods over the same index and operators (top-k = 10 for all, as in the paper).

- ``bm25``: Okapi BM25 over the layout layer's passages (~400 words of whole blocks within one section; the
  paper's ~500-token chunks, shared with SuperRAG and G²-Reader), IDF per document;
- ``dense``: the same passages embedded, exact cosine within each document;
- ``layout-vanilla``: Layout+Vanilla, dense retrieval over the tree's content blocks (``tree_node_embedding``;
  its former name ``layout`` still works and warns);
- ``graphranker``: personalized PageRank over each document's whole entity graph from the question's linked
  entities (no selector), nodes scored by the sum of their entities' scores.

Each plan ends in Fetch_Evidence then Reduce, so a baseline answers too (extractively without an LLM).
"""

from __future__ import annotations

from ..retrieval.plan import Plan, PlanStep
from ..retrieval.planner import Planner
from ..retrieval.planner_replies import QueryCategory
from .method_registry import method


def _plan(question: str, search: list[PlanStep], unit: str = "node") -> Plan:
    steps = [*search, PlanStep(id="evidence", operator="Fetch_Evidence",
                               params={"unit": unit} if unit != "node" else {}, after=[search[-1].id]),
             PlanStep(id="reduce", operator="Reduce", params={"question": question}, after=["evidence"])]
    return Plan(question=question, category="single-hop", classified_by="method", steps=steps, output="evidence",
                answer="reduce")


def _embed(question: str) -> PlanStep:
    return PlanStep(id="embed", operator="Embed", params={"question": question})


@method("bm25", "Okapi BM25 over each document's passages (~400 words)", baseline=True, needs="layout")
async def bm25(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
    return _plan(question, [PlanStep(id="bm25", operator="BM25", params={"question": question})], unit="layout")


@method("dense", "The same passages embedded, nearest by cosine within each document", baseline=True,
        needs="layout")
async def dense(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
    return _plan(question, [_embed(question), PlanStep(id="search", operator="Vector_Search",
                                                       params={"over": "passage"}, after=["embed"])], unit="layout")


@method("layout-vanilla", "Layout+Vanilla, the tree's content blocks nearest to the question", baseline=True)
async def layout_vanilla(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
    return _plan(question, [_embed(question), PlanStep(id="search", operator="Vector_Search", after=["embed"])])


@method("graphranker", "PageRank over each document's whole entity graph, no selector", baseline=True)
async def graphranker(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
    return _plan(question, [PlanStep(id="extract", operator="Extract", params={"question": question}),
                            PlanStep(id="rank", operator="Graph_Rank", after=["extract"])])
