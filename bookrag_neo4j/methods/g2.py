"""G²-Reader (dual evolving graphs) and its ablations as plans over the shared operators, on the content graph
(built on first use where the door hands in a builder, as ``bookrag index --stage content-graph`` would). Every
variant gets the project's budget of 10 units (the paper's k = 5 is for its own comparisons).

| method | what it is (the paper's ablation) |
|---|---|
| ``g2`` | planning graph (decompose, readout per node, check, refine up to tau_max = 3) over the evolved graph;
  LLM-free the question's readout alone (docs/methods/g2.md) |
| ``g2-t0`` | the same over the graph before evolution: h(0) and window links (Table 4, T = 0) |
| ``g2-no-readout`` | readout without neighbours: the top k nodes (Table 4, no SubG.) |
| ``g2-flat`` | the planning graph over plain passages: no summaries, keywords, evolution or links (Table 2) |
| ``g2-no-plan`` | the question's readout alone, no planning graph (Table 2) |
| ``g2-tau0`` | the planning graph without refinement (Table 3, tau_max = 0) |
"""

from __future__ import annotations

from typing import Any

from ..retrieval.plan import Plan, PlanStep
from ..retrieval.planner import Planner
from ..retrieval.planner_replies import QueryCategory
from .method_registry import method

BUDGET = 10


def _plan(name: str, question: str, search: list[PlanStep], last: str) -> Plan:
    steps = [*search,
             PlanStep(id="evidence", operator="Fetch_Evidence", params={"unit": "layout"}, after=[last]),
             PlanStep(id="answer", operator="G2_Reason", params={"question": question}, after=["evidence", last])]
    return Plan(question=question, method=name, category="single-hop", classified_by="method", steps=steps,
                output="evidence", answer="answer")


def _planned(name: str, question: str, planner: Planner, **params: Any) -> Plan:
    """The planning graph's plan; LLM-free, the question's readout alone: the offline decomposer, checker and
    refinement were not shown to help on both halves of both dev sets (docs/methods/g2.md)."""
    step = PlanStep(id="plan", operator="G2_Plan",
                    params={"question": question, "k": BUDGET, "plan": planner.llm is not None, **params})
    return _plan(name, question, [step], "plan")


def _single(name: str, question: str, **params: Any) -> Plan:
    steps = [PlanStep(id="embed", operator="Embed", params={"question": question}),
             PlanStep(id="readout", operator="Readout", params={"k": BUDGET, **params}, after=["embed"])]
    return _plan(name, question, steps, "readout")


@method("g2", "G²-Reader: planning graph over the evolved content graph (readout with neighbours, checker, "
        "refinement)", needs="g2")
async def g2(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
    return _planned("g2", question, planner)


@method("g2-t0", "G²-Reader without evolution: h(0) and window links only", needs="g2", ablates="g2")
async def g2_t0(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
    return _planned("g2-t0", question, planner, graph="initial")


@method("g2-no-readout", "G²-Reader with a top-k readout (no neighbours)", needs="g2", ablates="g2")
async def g2_no_readout(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
    return _planned("g2-no-readout", question, planner, neighbours=0)


@method("g2-flat", "G²-Reader's planning graph over plain passages (no content graph)", needs="layout", ablates="g2")
async def g2_flat(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
    return _planned("g2-flat", question, planner, graph="flat")


@method("g2-no-plan", "G²-Reader's readout of the question alone (no planning graph)",
        needs="g2", ablates="g2")
async def g2_no_plan(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
    return _single("g2-no-plan", question)


@method("g2-tau0", "G²-Reader without refinement (tau_max = 0)", needs="g2", ablates="g2")
async def g2_tau0(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
    return _planned("g2-tau0", question, planner, tau_max=0)
