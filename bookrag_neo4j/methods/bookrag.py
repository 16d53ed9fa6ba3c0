"""BookRAG (paper §5): the planner's category chooses one of three plans over the shared operators.

- single-hop: Embed ‖ Extract -> Select_by_Entity ∪ Select_by_Section -> Fetch -> Graph_Reasoning ‖ Text_Reasoning ->
  Skyline_Ranker -> Fetch_Evidence -> Map -> Reduce;
- multi-hop: Decompose -> single-hop retrieval per sub-question -> Merge -> Map -> Reduce (no LLM: one retrieval);
- global: Filter_Range / Filter_Modal -> Fetch -> Text_Reasoning -> Top_K (``BOOKRAG_GLOBAL_MAX_NODES``) ->
  Fetch_Evidence -> Count (:func:`~bookrag_neo4j.retrieval.planner.counts_filtered`) or Map -> Reduce.

Ablations (Table 7) substitute: ``no-plan`` plans every question single-hop; ``no-selector`` uses Select_All;
``no-graph`` and ``no-text`` drop a reasoner and keep the other's best ``BOOKRAG_SKYLINE_MIN`` nodes (Top_K), as the
Skyline needs both.
"""

from __future__ import annotations

from ..retrieval.plan import Plan, PlanStep
from ..retrieval.planner import Planner, Understanding, counts_filtered, understand
from ..retrieval.planner_replies import QueryCategory
from .method_registry import method


def single_hop_steps(question: str, *, prefix: str = "", after: list[str] | None = None) -> list[PlanStep]:
    """The single-hop retrieval of ``question``, ending in ``{prefix}evidence``."""
    p, root = prefix, after or []
    return [
        PlanStep(id=f"{p}embed", operator="Embed", params={"question": question}, after=root),
        PlanStep(id=f"{p}extract", operator="Extract", params={"question": question}, after=root),
        PlanStep(id=f"{p}select_entity", operator="Select_by_Entity", after=[f"{p}extract"]),
        PlanStep(id=f"{p}select_section", operator="Select_by_Section", after=[f"{p}embed"]),
        PlanStep(id=f"{p}fetch", operator="Fetch", after=[f"{p}select_entity", f"{p}select_section", f"{p}embed"]),
        PlanStep(id=f"{p}graph", operator="Graph_Reasoning", after=[f"{p}fetch", f"{p}extract"]),
        PlanStep(id=f"{p}text", operator="Text_Reasoning", after=[f"{p}fetch", f"{p}embed"]),
        PlanStep(id=f"{p}skyline", operator="Skyline_Ranker", after=[f"{p}fetch", f"{p}graph", f"{p}text"]),
        PlanStep(id=f"{p}evidence", operator="Fetch_Evidence", after=[f"{p}skyline"]),
    ]


def synthesis_steps(question: str, evidence: str, operation: str | None = None) -> list[PlanStep]:
    params = {"question": question, **({"operation": operation} if operation else {})}
    return [PlanStep(id="map", operator="Map", params=params, after=[evidence]),
            PlanStep(id="reduce", operator="Reduce", params=params, after=[evidence, "map"])]


def bookrag_plan(question: str, seen: Understanding) -> Plan:
    """The plan for the planner's understanding of ``question``."""
    plan = Plan(question=question, category=seen.category, classified_by=seen.classified_by)
    if seen.global_plan is not None:
        spec = seen.global_plan
        plan.operation = spec.operation
        previous: list[str] = []
        for i, f in enumerate(spec.filters):
            operator = "Filter_Range" if f.filter_type in ("page", "section") else "Filter_Modal"
            plan.steps.append(PlanStep(id=f"f{i}", operator=operator,
                                       params={"type": f.filter_type, "value": f.filter_value}, after=previous))
            previous = [f"f{i}"]
        if not previous:  # no filter: the whole scope
            plan.steps.append(PlanStep(id="all", operator="Select_All"))
            previous = ["all"]
        plan.steps += [  # the filtered nodes ranked by the text reasoner, then cut (not the first in reading order),
            PlanStep(id="embed", operator="Embed", params={"question": question}),  # then the rest of their range
            PlanStep(id="fetch", operator="Fetch", params={"widen": False, "fill": True}, after=[*previous, "embed"]),
            PlanStep(id="text", operator="Text_Reasoning", after=["fetch", "embed"]),
            PlanStep(id="rank", operator="Top_K", params={"by": "text", "budget": "global"},
                     after=["fetch", "text", *previous]),
            PlanStep(id="evidence", operator="Fetch_Evidence", after=["rank"])]
        if spec.operation == "COUNT" and counts_filtered(question):  # their number answers it, without an LLM
            plan.steps += [PlanStep(id="count", operator="Count", after=[*previous, "fetch", "evidence"]),
                           PlanStep(id="reduce", operator="Reduce", params={"question": question,
                                                                             "operation": "COUNT"}, after=["count"])]
            plan.output, plan.answer = "count", "reduce"
            return plan
        plan.steps += synthesis_steps(question, "evidence", spec.operation)
        plan.output, plan.answer = "evidence", "reduce"
        return plan
    if seen.sub_questions:
        plan.sub_questions = [s.model_dump() for s in seen.sub_questions]
        retrieval = [s.question for s in seen.sub_questions if s.type == "retrieval"] or [question]
        plan.steps.append(PlanStep(id="decompose", operator="Decompose",
                                   params={"sub_questions": plan.sub_questions}))
        for i, sub in enumerate(retrieval):
            plan.steps += single_hop_steps(sub, prefix=f"q{i}.", after=["decompose"])
        plan.steps.append(PlanStep(id="merge", operator="Merge", params={"questions": retrieval},
                                   after=[f"q{i}.evidence" for i in range(len(retrieval))]))
        plan.steps += synthesis_steps(question, "merge")
        plan.output, plan.answer = "merge", "reduce"
        return plan
    plan.steps = [*single_hop_steps(question), *synthesis_steps(question, "evidence")]
    plan.output, plan.answer = "evidence", "reduce"
    if seen.category == "multi-hop":
        plan.notes.append("no LLM to decompose: retrieved as one question")
    return plan


# --- the ablations, as substitutions on a plan ---

def _replace(plan: Plan, removed: set[str], make: PlanStep | None) -> Plan:
    """The plan without the steps ``removed``; the steps that read them read ``make`` instead (added where
    the first removed step was), or nothing."""
    steps: list[PlanStep] = []
    for step in plan.steps:
        if step.id in removed:
            if make is not None and make not in steps:
                steps.append(make)
            continue
        after = [(make.id if make is not None else None) if a in removed else a for a in step.after]
        steps.append(step.model_copy(update={"after": list(dict.fromkeys(a for a in after if a))}))
    return plan.model_copy(update={"steps": steps})


def _prefix(step_id: str) -> str:
    return step_id.rsplit(".", 1)[0] + "." if "." in step_id else ""


def no_selector(plan: Plan) -> Plan:
    """Every content block of the scope as candidates (Select_All for Select_by_Entity and Select_by_Section)."""
    selectors = [s for s in plan.steps if s.operator in ("Select_by_Entity", "Select_by_Section")]
    for prefix in dict.fromkeys(_prefix(s.id) for s in selectors):
        plan = _replace(plan, {s.id for s in selectors if _prefix(s.id) == prefix},
                        PlanStep(id=f"{prefix}select_all", operator="Select_All"))
    return plan


def one_reasoner(plan: Plan, keep: str) -> Plan:
    """Drop the other reasoner; its best nodes by the kept one's score replace the Skyline."""
    drop = "Graph_Reasoning" if keep == "text" else "Text_Reasoning"
    plan = _replace(plan, {s.id for s in plan.steps if s.operator == drop}, None)
    steps = [s.model_copy(update={"operator": "Top_K", "params": {"by": keep}}) if s.operator == "Skyline_Ranker"
             else s for s in plan.steps]
    return plan.model_copy(update={"steps": steps})


# --- registration ---

async def _understood(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
    return bookrag_plan(question, await understand(question, planner, category=category))


@method("bookrag", "BookRAG: the planner's plan per category (selectors, PageRank ‖ reranker, Skyline, Map/Reduce)")
async def bookrag(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
    return await _understood(question, planner, category)


@method("bookrag-no-plan", "One static single-hop plan for every question", ablates="bookrag")
async def bookrag_no_plan(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
    return await _understood(question, planner, "single-hop")


@method("bookrag-no-selector", "Every content block of the scope as candidates (no selectors)", ablates="bookrag")
async def bookrag_no_selector(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
    return no_selector(await _understood(question, planner, category))


@method("bookrag-no-graph", "No Graph_Reasoning; the reranker's best nodes", ablates="bookrag")
async def bookrag_no_graph(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
    return one_reasoner(await _understood(question, planner, category), keep="text")


@method("bookrag-no-text", "No Text_Reasoning; PageRank's best nodes", ablates="bookrag")
async def bookrag_no_text(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
    return one_reasoner(await _understood(question, planner, category), keep="graph")
