"""Plans as data: a DAG of operator calls that the executor runs, and the trace each run leaves.

    plan = Plan(question="What does lm fit?", method="bookrag", category="single-hop", steps=[
        PlanStep(id="embed", operator="Embed", params={"question": "What does lm fit?"}),
        PlanStep(id="layout", operator="Vector_Search", after=["embed"]),
        PlanStep(id="evidence", operator="Fetch_Evidence", after=["layout"]),
    ], output="evidence")        # as JSON (plan.model_dump_json()), edited: bookrag retrieve --plan plan.json

``after`` names the steps whose outputs a step reads (matched to the operator's typed inputs by type); ``output`` is the
step whose ``EvidenceSet`` is the evidence, ``answer`` the one whose ``Draft`` is the answer
(:mod:`bookrag_neo4j.ops.values`). Retrieval runs ``output`` and what it depends on; answering runs the whole plan.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, model_validator


class PlanStep(BaseModel):
    """One operator call: its id, the registered operator's name, its parameters and the steps it reads."""

    id: str
    operator: str
    params: dict[str, Any] = Field(default_factory=dict)
    after: list[str] = Field(default_factory=list)


class Plan(BaseModel):
    """A method's operator calls for one question (a serialisable DAG)."""

    question: str
    method: str = "bookrag"
    category: str = "single-hop"
    classified_by: str = "given"  # "llm", "heuristic", "given" (a category passed in) or "method" (fixed plan)
    steps: list[PlanStep] = Field(default_factory=list)
    output: str = ""  # the step whose EvidenceSet is the evidence
    answer: str | None = None  # the step whose Draft is the answer (None: retrieval only)
    sub_questions: list[dict[str, str]] = Field(default_factory=list)
    operation: str | None = None  # global questions: COUNT, LIST, SUMMARIZE, ANALYZE
    notes: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check(self) -> Plan:
        ids = [s.id for s in self.steps]
        if len(set(ids)) != len(ids):
            raise ValueError(f"plan step ids repeat: {sorted({i for i in ids if ids.count(i) > 1})}")
        for step in self.steps:
            missing = [a for a in step.after if a not in ids]
            if missing:
                raise ValueError(f"step {step.id!r} reads unknown steps {missing}")
        for name, target in (("output", self.output), ("answer", self.answer)):
            if target and target not in ids:
                raise ValueError(f"plan {name} {target!r} is not a step")
        return self

    def step(self, step_id: str) -> PlanStep:
        return next(s for s in self.steps if s.id == step_id)

    def explain(self) -> str:
        lines = [f"{self.method}: {self.category} (classified by {self.classified_by}): {self.question}"]
        lines += [f"  {s.id}: {s.operator}({', '.join(f'{k}={v!r}' for k, v in s.params.items())})"
                  + (f" after {', '.join(s.after)}" if s.after else "") for s in self.steps]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


class TraceStep(BaseModel):
    """One executed step: what it read and returned (short summaries), its time and what the models cost."""

    step: str = ""
    operator: str
    seconds: float = 0.0
    model_seconds: float = 0.0  # of which model inference (LLM, embedder, spaCy, cross-encoder)
    llm_calls: int = 0
    tokens: int = 0
    inputs: list[str] = Field(default_factory=list)
    output: str = ""
    details: list[str] = Field(default_factory=list)  # more lines about the output (a planning graph's rounds)
    engine: str | None = None  # Graph_Reasoning's PageRank engine: "gds" or "local"
