"""The planner (paper §5.1): classify the question, and decompose it or find its filters.

    seen = await understand("How many tables are between page 3 and 10?", Planner())   # LLM-free
    seen.category, seen.global_plan       # 'global'; filters page 3-10, table; operation COUNT

With an LLM: ``query_classify``, ``query_decompose``, ``global_filter`` (the heuristics on a failed reply). Without:
**global** when the question aggregates ("how many", "list", "summarize") and the aggregate's object is a structural
noun (table, figure, section, page ...), not a noun elsewhere or a modifier (spaCy's parse); a count is answered by the
filtered nodes' number only if it asks for nothing more (:func:`counts_filtered`). **Multi-hop** when it compares or
combines ("compare", "both", "than"): one retrieval without an LLM, unless :mod:`.glossary` finds two line items or a
metric made of them, one sub-question each. **Single-hop** otherwise. Used by :mod:`bookrag_neo4j.methods.bookrag`.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass, field

from ..errors import ModelError
from ..llm.chat import ChatModel
from ..llm.prompts import render_prompt
from ..text.grammar import asks_to_compare, section_reference, without_section_references
from ..text.nlp import parse
from ..text.references import pages
from .glossary import Glossary
from .planner_replies import Decomposition, GlobalFilter, GlobalPlan, QueryCategory, QueryClassification, SubQuestion

log = logging.getLogger(__name__)

_STRUCTURE = (r"(?:tables?|figures?|images?|pictures?|charts?|plots?|diagrams?|equations?|formulas?|formulae|"
              r"sections?|chapters?|pages?|appendi(?:x|ces))")
# an aggregate whose object is a structural noun, a word or two of modifiers apart: "how many tables",
# "list all the line charts", "summarise the appendices" (not "how many people ... in the figure")
_TARGET = re.compile(r"\b(?:how many|number of|count(?: of)?|list(?: of)?|enumerate|summari[sz]e|every|"
                     r"total number of)\s+(?:(?:all|the|of|these|those)\s+)*(?:[\w-]+\s+){0,2}?" + _STRUCTURE + r"\b",
                     re.IGNORECASE)
_KINDS = {"table": "table", "figure": "image", "image": "image", "picture": "image", "chart": "image",
          "plot": "image", "diagram": "image", "equation": "equation", "formula": "equation"}


def _structural_target(question: str) -> bool:
    """Whether an aggregate's object is a structural noun (``_TARGET``), not a structural noun that modifies the
    object ("how many chapter authors", "the number of page views"), as the question's parse shows."""
    match = _TARGET.search(question)
    if match is None:
        return False
    doc = parse(question)
    span = doc.char_span(match.start(), match.end(), alignment_mode="expand") if doc is not None else None
    return span is None or span[-1].dep_ != "compound"


_PLAIN = frozenset((
    "a an the this that these those all any each of in on at from within throughout across between among and or to "
    "is are was were be been being there here do does did have has had how many number count counted total totally "
    "report document paper book manual handbook guide file slides deck presentation pdf it its "
    "appear appears shown listed provided included contained given used present presented").split())


def counts_filtered(question: str) -> bool:
    """Whether a count asks for nothing but what its filters hold: its words, less the aggregate and structural
    nouns, page and section references, numbers and plain words ("are there", "in this report", "appear"), are
    none ("How many figures are on pages 51-53?"). One that says more ("how many charts *are sourced from the
    survey*", "how many pages include figures *which have humans*") is answered from the filtered nodes read, not
    from their number."""
    rest = without_section_references(_TARGET.sub(" ", question))
    rest = re.sub(_STRUCTURE, " ", rest, flags=re.IGNORECASE)
    return all(word in _PLAIN for word in re.findall(r"[a-z]{3,}", rest.lower()))


def heuristic_category(question: str) -> QueryCategory:
    if _structural_target(question):
        return "global"
    if asks_to_compare(question):
        return "multi-hop"
    return "single-hop"


def heuristic_global_plan(question: str) -> GlobalPlan:
    """Filters and operation from the question's words (no LLM)."""
    filters: list[GlobalFilter] = []
    if numbers := [int(page.label) for page in pages(question) if page.label.isdigit()]:  # "pages 3 and 10": 3-10
        filters.append(GlobalFilter(filter_type="page", filter_value=f"{min(numbers)}-{max(numbers)}"))
    if section := section_reference(question):  # "Appendix C", "Section 3 have" -> C, 3
        filters.append(GlobalFilter(filter_type="section", filter_value=section))
    elif re.search(r"\bappendi(?:x|ces)\b", question, re.IGNORECASE):  # "summarise the appendices"
        filters.append(GlobalFilter(filter_type="section", filter_value="Appendix"))
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


@dataclass(frozen=True)
class Understanding:
    """What the planner made of a question: its category and, per category, the decomposition or the
    global filters and operation (the BookRAG method composes the operators from it)."""

    category: QueryCategory
    classified_by: str  # "llm", "heuristic", "glossary" or "given"
    sub_questions: list[SubQuestion] = field(default_factory=list)  # multi-hop, with an LLM or the glossary
    global_plan: GlobalPlan | None = None  # global


@dataclass(frozen=True)
class Planner:
    """What plans: the LLM (None: LLM-free) and the glossary that decomposes a question without one."""

    llm: ChatModel | None = None
    glossary: Glossary = field(default_factory=lambda: Glossary.load(""))


async def understand(question: str, planner: Planner, *, category: QueryCategory | None = None) -> Understanding:
    """Classify ``question`` (unless ``category`` is given), then decompose it (multi-hop, with an LLM) or
    find its filters and operation (global). Without an LLM, a question the glossary decomposes is multi-hop:
    the question itself, then one sub-question per line item (:mod:`.glossary`)."""
    llm = planner.llm
    by = "given" if category else "heuristic"
    if category is None and llm is not None and (
            reply := await _ask(llm, "query_classify", QueryClassification, "query.plan", question=question)):
        category, by = reply.category, "llm"
    kind: QueryCategory = category if category is not None else await asyncio.to_thread(
        heuristic_category, question)  # may parse with spaCy
    if kind == "global":
        spec = await _ask(llm, "global_filter", GlobalPlan, "query.plan", question=question) if llm else None
        return Understanding(kind, by, global_plan=spec or heuristic_global_plan(question))
    if kind == "multi-hop" and llm is not None:
        decomposition = await _ask(llm, "query_decompose", Decomposition, "query.plan", question=question)
        if decomposition is not None:
            return Understanding(kind, by, sub_questions=list(decomposition.sub_questions))
    if llm is None and by == "heuristic" and (parts := planner.glossary.sub_questions(question)):
        return Understanding("multi-hop", "glossary", sub_questions=[  # the question itself, then its line items
            SubQuestion(question=q, type="retrieval") for q in [question, *parts]])
    return Understanding(kind, by)
