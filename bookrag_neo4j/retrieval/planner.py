"""The planner (paper §5.1): classify the question, then compose operators into a plan.

    plan = await make_plan("How many tables are between page 3 and 10?", llm=None)
    plan.category, plan.classified_by     # ('global', 'heuristic')
    print(plan.explain())

With an LLM: ``query_classify`` for the category, ``query_decompose`` for multi-hop sub-questions,
``global_filter`` for a global question's filters and operation (each falls back to the heuristics below on
a failed reply). Without one, heuristics:

- **global** when the question aggregates ("how many", "number of", "list", "summarize", "all the") over a
  structural noun (table, figure, image, chart, equation, formula, section, chapter, page, appendix);
- **multi-hop** when it compares or combines ("compare", "difference between", "both", "which ... larger /
  more / higher / greater", "than"); without an LLM it cannot be decomposed, so it is retrieved as one
  single-hop question (the plan says so);
- **single-hop** otherwise.

Plans (``Plan.steps``, a serialisable DAG):

- single-hop: Extract -> Select_by_Entity ∪ Select_by_Section -> Graph_Reasoning ‖ Text_Reasoning ->
  Skyline_Ranker -> Reduce;
- multi-hop: Decompose -> (single-hop retrieval per retrieval sub-question) -> Map -> Reduce;
- global: Filter_Range / Filter_Modal (nested) -> Count (no LLM needed), or Map -> Reduce.
"""

from __future__ import annotations

import logging
import re

from ..errors import ModelError
from ..llm.chat import ChatModel
from ..llm.prompts import render_prompt
from .evidence import Plan, PlanStep
from .replies import Decomposition, GlobalFilter, GlobalPlan, QueryCategory, QueryClassification

log = logging.getLogger(__name__)

_AGGREGATE = re.compile(r"\b(how many|number of|count|list|enumerate|summari[sz]e|all (?:the )?|every|total number)\b",
                        re.IGNORECASE)
_STRUCTURAL = re.compile(r"\b(tables?|figures?|images?|pictures?|charts?|plots?|diagrams?|equations?|formulas?|"
                         r"formulae|sections?|chapters?|pages?|appendi(?:x|ces))\b", re.IGNORECASE)
_COMPARE = re.compile(r"\b(compare[ds]?|comparison|difference between|differ|both|versus|vs\.?|than|"
                      r"(?:larger|greater|higher|lower|smaller|more|less|bigger)\b.*\bor\b)", re.IGNORECASE)
_PAGES = re.compile(r"\bpages?\s+(\d+)(?:\s*(?:-|–|to|and|through)\s*(\d+))?", re.IGNORECASE)
_SECTION = re.compile(r"\b(?:section|chapter|part|appendix)\s+(?:titled\s+|named\s+|called\s+)?[\"“'‘]?"
                      r"([A-Z0-9][^\"”'’?,.]{1,80})", re.IGNORECASE)
_KINDS = {"table": "table", "figure": "image", "image": "image", "picture": "image", "chart": "image",
          "plot": "image", "diagram": "image", "equation": "equation", "formula": "equation"}


def heuristic_category(question: str) -> QueryCategory:
    if _AGGREGATE.search(question) and _STRUCTURAL.search(question):
        return "global"
    if _COMPARE.search(question):
        return "multi-hop"
    return "single-hop"


def heuristic_global_plan(question: str) -> GlobalPlan:
    """Filters and operation from the question's words (no LLM)."""
    filters: list[GlobalFilter] = []
    if m := _PAGES.search(question):
        filters.append(GlobalFilter(filter_type="page", filter_value=f"{m.group(1)}-{m.group(2) or m.group(1)}"))
    if m := _SECTION.search(question):
        filters.append(GlobalFilter(filter_type="section", filter_value=m.group(1).strip()))
    kinds = {kind for word, kind in _KINDS.items() if re.search(rf"\b{word}s?\b", question, re.IGNORECASE)}
    filters += [GlobalFilter(filter_type=k) for k in sorted(kinds)]
    if not kinds and re.search(r"\b(sections?|chapters?)\b", question, re.IGNORECASE) and not any(
            f.filter_type == "section" for f in filters):
        filters.append(GlobalFilter(filter_type="section"))
    lowered = question.lower()
    if re.search(r"\b(how many|number of|count|total number)\b", lowered):
        operation = "COUNT"
    elif re.search(r"\bsummari[sz]e|overview\b", lowered):
        operation = "SUMMARIZE"
    elif re.search(r"\b(analy[sz]e|trend|compare)\b", lowered):
        operation = "ANALYZE"
    else:
        operation = "LIST"
    return GlobalPlan(filters=filters, operation=operation)


async def _ask(llm: ChatModel, prompt: str, model: type, stage: str, **variables: str):
    try:
        return (await llm.complete(render_prompt(prompt, **variables), model, stage=stage)).value
    except ModelError as exc:
        log.warning("%s failed (%s); using the heuristics", prompt, exc)
        return None


async def make_plan(question: str, llm: ChatModel | None, *, category: QueryCategory | None = None) -> Plan:
    """Classify ``question`` (unless ``category`` is given) and compose its plan."""
    by = "given" if category else "heuristic"
    category = category or heuristic_category(question)
    if by == "heuristic" and llm is not None and (
            reply := await _ask(llm, "query_classify", QueryClassification, "query.plan", question=question)):
        category, by = reply.category, "llm"
    plan = Plan(question=question, category=category, classified_by=by)
    if category == "global":
        spec = None
        if llm is not None:
            spec = await _ask(llm, "global_filter", GlobalPlan, "query.plan", question=question)
        spec = spec or heuristic_global_plan(question)
        plan.operation = spec.operation
        previous: list[str] = []
        for i, f in enumerate(spec.filters):
            operator = "Filter_Range" if f.filter_type in ("page", "section") else "Filter_Modal"
            plan.steps.append(PlanStep(id=f"f{i}", operator=operator,
                                       params={"type": f.filter_type, "value": f.filter_value}, after=previous))
            previous = [f"f{i}"]
        if spec.operation == "COUNT":  # answered from the filtered nodes, without an LLM
            plan.steps.append(PlanStep(id="count", operator="Count", after=previous))
        else:
            plan.steps += [PlanStep(id="map", operator="Map", params={"operation": spec.operation}, after=previous),
                           PlanStep(id="reduce", operator="Reduce", after=["map"])]
        return plan
    if category == "multi-hop" and llm is not None:
        decomposition = await _ask(llm, "query_decompose", Decomposition, "query.plan", question=question)
        if decomposition is not None:
            plan.sub_questions = [s.model_dump() for s in decomposition.sub_questions]
            retrieval = [s.question for s in decomposition.sub_questions if s.type == "retrieval"] or [question]
            plan.steps.append(PlanStep(id="decompose", operator="Decompose"))
            for i, sub in enumerate(retrieval):
                plan.steps += _single_hop_steps(sub, prefix=f"q{i}.", after=["decompose"])
            plan.steps += [PlanStep(id="map", operator="Map", after=[f"q{i}.skyline" for i in range(len(retrieval))]),
                           PlanStep(id="reduce", operator="Reduce", after=["map"])]
            return plan
    plan.steps = [*_single_hop_steps(question), PlanStep(id="reduce", operator="Reduce", after=["skyline"])]
    if category == "multi-hop":
        plan.steps[0].params["note"] = "no LLM to decompose: retrieved as one question"
    return plan


def _single_hop_steps(question: str, *, prefix: str = "", after: list[str] | None = None) -> list[PlanStep]:
    p = prefix
    return [
        PlanStep(id=f"{p}extract", operator="Extract", params={"question": question}, after=after or []),
        PlanStep(id=f"{p}select_entity", operator="Select_by_Entity", after=[f"{p}extract"]),
        PlanStep(id=f"{p}select_section", operator="Select_by_Section", params={"question": question},
                 after=after or []),
        PlanStep(id=f"{p}graph", operator="Graph_Reasoning", after=[f"{p}select_entity", f"{p}select_section"]),
        PlanStep(id=f"{p}text", operator="Text_Reasoning", params={"question": question},
                 after=[f"{p}select_entity", f"{p}select_section"]),
        PlanStep(id=f"{p}skyline", operator="Skyline_Ranker", after=[f"{p}graph", f"{p}text"]),
    ]
