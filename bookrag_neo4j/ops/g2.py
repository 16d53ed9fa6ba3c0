"""G²-Reader's operators (:mod:`bookrag_neo4j.content`): Readout over the content graph, G2_Plan (the planning graph
run over readouts) and G2_Reason (the answer from the evidence and the sub-questions' answers).

    Embed -> Readout(k=10) -> Fetch_Evidence(unit="layout")                        # g2-no-plan
    G2_Plan(question, k=10, tau_max=3) -> Fetch_Evidence(unit="layout") -> G2_Reason   # g2
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import ModelError
from ..llm.prompts import render_prompt
from ..retrieval.answering import extractive_answer, extractive_items, numbered
from ..retrieval.g2.readout import flat_readout, readout
from ..retrieval.results import EvidenceNode
from .evidence import evidence_node, fetch_units
from .g2_agent import Round, output_text, plan_and_read
from .operator_registry import RunContext, model_time, operator
from .values import Draft, EvidenceSet, Question, Ranking

log = logging.getLogger(__name__)

Graph = Literal["evolved", "initial", "flat"]  # the evolved graph, h(0) with window links (T = 0), or passages


class ReadoutParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    k: int = Field(10, ge=1)  # the node budget (the project's top 10; the paper's k = 5)
    neighbours: int | None = Field(None, ge=0)  # None: BOOKRAG_G2_NEIGHBOURS
    graph: Graph = "evolved"


async def _readout(ctx: RunContext, p: ReadoutParams, text: str, vector: list[float]) -> list[str]:
    if p.graph == "flat":
        return await flat_readout(ctx.db, ctx.documents, text, vector, k=p.k,
                                  engine=ctx.settings.retrieval.vector_engine)
    neighbours = ctx.settings.g2.neighbours if p.neighbours is None else p.neighbours
    return await readout(ctx.db, ctx.documents, text, vector, k=p.k, neighbours=neighbours,
                         evolved=p.graph == "evolved", engine=ctx.settings.retrieval.vector_engine)


@dataclass(frozen=True)
class Reading(Ranking):
    """G²-Reader's planning graph run: the fused evidence keys (a Ranking), each round's DAG, node answers and
    checker verdict, the last round's (sub-question, answer) pairs, and the unparsable checker replies."""

    rounds: list[Round] = field(default_factory=list)
    pairs: list[tuple[str, str]] = field(default_factory=list)
    failures: int = 0

    def summary(self) -> str:
        verdicts = [r.verdict.sufficient if r.verdict else None for r in self.rounds]
        return (f"{len(self.keys)} kept, {len(self.rounds)} round(s), verdicts {verdicts}"
                + (f", {self.failures} checker failure(s)" if self.failures else ""))

    def details(self) -> list[str]:
        lines = []
        for r in self.rounds:
            verdict = ("sufficient" if r.verdict.sufficient else f"insufficient, gaps {r.verdict.gaps}") \
                if r.verdict else "no verdict"
            lines.append(f"round {r.number}: {r.dag}")
            lines += [f"  {a.id}: {a.task[:70]} -> {a.answer[:90]!r} ({a.units} units)" for a in r.answers]
            lines.append(f"  checker ({r.verdict.by if r.verdict else '-'}): {verdict}")
            lines += [f"  note: {n}" for n in r.notes]
        return lines



@operator("Readout", family="search", params=ReadoutParams)
async def readout_op(ctx: RunContext, p: ReadoutParams, question: Question) -> Ranking:
    """G²-Reader's structured subgraph readout: the content nodes best for the question (cosine and full text,
    fused), each with its best-linked neighbours, until k nodes."""
    keys = await _readout(ctx, p, question.text, question.vector)
    return Ranking(keys=keys, text={k: 1.0 / (i + 1) for i, k in enumerate(keys)})


class PlanParams(ReadoutParams):
    question: str = Field(min_length=1)
    tau_max: int | None = Field(None, ge=0)  # None: BOOKRAG_G2_TAU_MAX
    plan: bool = True  # False: the question's readout alone (no planning graph)


@operator("G2_Plan", family="search", params=PlanParams)
async def g2_plan(ctx: RunContext, p: PlanParams) -> Reading:
    """The planning graph: decompose, read out and answer each node (children first), check, refine; the nodes'
    readouts fused, at most k (offline: comparison split, extractive worker, coverage checker)."""

    async def read(text: str) -> list[EvidenceNode]:
        with model_time():
            (vector,) = await ctx.models.embedder.embed([text])
        keys = await _readout(ctx, p, text, list(vector))
        rows = await fetch_units(ctx, keys, "layout")
        return [evidence_node(rows[k]) for k in keys if k in rows]

    tau = ctx.settings.g2.tau_max if p.tau_max is None else p.tau_max
    result = await plan_and_read(p.question, read=read, llm=ctx.llm, k=p.k, tau_max=tau, plan=p.plan)
    return Reading(keys=result.keys, text={k: 1.0 / (i + 1) for i, k in enumerate(result.keys)},
                   rounds=result.rounds, pairs=result.pairs, failures=result.failures)


class ReasonParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(min_length=1)


@operator("G2_Reason", family="synth", params=ReasonParams)
async def g2_reason(ctx: RunContext, p: ReasonParams, evidence: EvidenceSet, reading: Reading | None) -> Draft:
    """The reasoner (prompt E.4): the answer from the evidence and the sub-questions' answers, citing the
    evidence (extractive without an LLM or on a failed reply)."""
    nodes = evidence.nodes
    if ctx.llm is not None:
        trajectory = "\n".join(f"- Q: {q}\n  A: {a}" for q, a in (reading.pairs if reading else [])) or "(none)"
        try:
            with model_time():
                reply = await ctx.llm.complete(render_prompt("g2_reasoner", question=p.question,
                                                             context=numbered(nodes), trajectory=trajectory),
                                               stage="g2.reasoner")
            return Draft(text=output_text(reply.value), used=nodes)
        except ModelError as exc:
            log.warning("G2 reasoner failed (%s); extractive answer", exc)
    return Draft(text=extractive_answer(nodes), used=extractive_items(nodes), extractive=True)
