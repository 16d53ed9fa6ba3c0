"""The worked example of adding an operator and a method (``docs/asking.md``, "Adding an operator and a method"),
the same code; :func:`register` applies the two decorators it shows, so a test can register it and take
it away again."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from bookrag_neo4j.methods.method_registry import METHODS, method
from bookrag_neo4j.ops.operator_registry import OPERATORS, RunContext, operator
from bookrag_neo4j.ops.values import Ranking
from bookrag_neo4j.retrieval.plan import Plan, PlanStep


class BothParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    top: int = Field(10, ge=1)


async def intersect(ctx: RunContext, p: BothParams, rankings: list[Ranking]) -> Ranking:
    """The keys every ranking holds, in the first one's order."""
    common = set.intersection(*(set(r.keys) for r in rankings)) if rankings else set()
    return Ranking(keys=[k for k in rankings[0].keys if k in common][:p.top] if rankings else [])


async def agreement(question, planner, category) -> Plan:
    steps = [
        PlanStep(id="embed", operator="Embed", params={"question": question}),
        PlanStep(id="lexical", operator="Lexical_Search", params={"question": question, "top": 50}),
        PlanStep(id="vector", operator="Vector_Search", params={"top": 50}, after=["embed"]),
        PlanStep(id="both", operator="Intersect", params={"top": 20}, after=["lexical", "vector"]),
        PlanStep(id="fetch", operator="Fetch", after=["both", "embed"]),
        PlanStep(id="rerank", operator="Rerank", params={"top": 5}, after=["fetch", "embed"]),
        PlanStep(id="evidence", operator="Fetch_Evidence", after=["rerank"]),
        PlanStep(id="reduce", operator="Reduce", params={"question": question}, after=["evidence"]),
    ]
    return Plan(question=question, steps=steps, output="evidence", answer="reduce")


def register() -> str:
    """Register the operator and the method as the README does; returns the method's name."""
    operator("Intersect", family="rank", params=BothParams)(intersect)
    method("agreement", "blocks both the full-text and the vector index rank well, reranked")(agreement)
    return "agreement"


def unregister() -> None:
    METHODS.pop("agreement", None)
    OPERATORS.pop("Intersect", None)
