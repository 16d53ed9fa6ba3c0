"""Synthesis operators (paper §5): Map (partial answers over groups of evidence) and Reduce (the answer,
citing its evidence). Without an LLM, Reduce answers extractively: the ranked evidence itself, or a
global COUNT's number.

    Fetch_Evidence -> Map(question) -> Reduce(question, operation)
"""

from __future__ import annotations

import logging

from pydantic import BaseModel, ConfigDict, Field

from ..errors import ModelError
from ..retrieval.answering import DIRECT_REDUCE, GROUP_SIZE, extractive_answer, extractive_items, map_answers, reduce_answer
from .operator_registry import RunContext, model_time, operator
from .values import Draft, EvidenceSet, Partial, Partials

log = logging.getLogger(__name__)


class SynthParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(min_length=1)
    operation: str | None = None  # global questions: COUNT, LIST, SUMMARIZE, ANALYZE


@operator("Map", family="synth", params=SynthParams)
async def map_op(ctx: RunContext, p: SynthParams, evidence: EvidenceSet) -> Partials:
    """One partial answer per sub-question's evidence (multi-hop), or per group of five nodes when there is
    more evidence than Reduce reads at once; none without an LLM, for a COUNT, or for little evidence."""
    if ctx.llm is None or evidence.count is not None:
        return Partials(answers=[])
    by_key = {n.key: n for n in evidence.nodes}
    if evidence.groups:
        questions = [g.question for g in evidence.groups]
        groups = [[by_key[k] for k in g.keys] for g in evidence.groups]
    elif len(evidence.nodes) > DIRECT_REDUCE:
        groups = [evidence.nodes[i:i + GROUP_SIZE] for i in range(0, len(evidence.nodes), GROUP_SIZE)]
        questions = [p.question] * len(groups)
    else:
        return Partials(answers=[])
    try:
        with model_time():
            replies = await map_answers(ctx.llm, questions, groups)
    except ModelError as exc:
        log.warning("partial answers failed (%s); reducing over the evidence alone", exc)
        return Partials(answers=[])
    return Partials(answers=[Partial(answer=a, keys=keys) for a, keys in replies])


@operator("Reduce", family="synth", params=SynthParams)
async def reduce_op(ctx: RunContext, p: SynthParams, evidence: EvidenceSet, partials: Partials | None) -> Draft:
    """The answer over the evidence and the partial answers, citing the evidence it used (extractive
    without an LLM, or on a failed reply; a COUNT is the count)."""
    nodes = evidence.nodes
    if ctx.llm is not None and evidence.count is None:
        try:
            with model_time():
                text, used = await reduce_answer(
                    ctx.llm, p.question, nodes, operation=p.operation,
                    partials=[(a.answer, a.keys) for a in (partials.answers if partials else [])])
            return Draft(text=text, used=used)
        except ModelError as exc:
            log.warning("answer synthesis failed (%s); answering extractively", exc)
    used = nodes[:evidence.counted] if evidence.count is not None else extractive_items(nodes)
    names = {d.key: d.name for d in ctx.documents}
    parts = [(names.get(key, key), n) for key, n in evidence.count_by_document.items()]
    return Draft(text=extractive_answer(nodes, count=evidence.count, parts=parts), used=used, extractive=True)
