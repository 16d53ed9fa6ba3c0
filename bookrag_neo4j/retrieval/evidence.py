"""What retrieval returns: evidence nodes with their scores and citations, the plan, and a trace per operator.

    evidence = await rag.aretrieve("What were net sales in 2017?", doc="AMAZON_2017_10K.pdf")
    evidence.nodes[0].citation.label()     # 'AMAZON_2017_10K.pdf, Item 7 > Results of Operations, p. 24'
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class Citation(BaseModel):
    """Where a piece of evidence is: document, section path, pages, and its box for highlighting."""

    document: str
    doc_key: str
    node_key: str
    section_path: str = ""
    page_start: int = 0
    page_end: int = 0
    bbox: list[float] | None = None

    def label(self) -> str:
        pages = (f"p. {self.page_start}" if self.page_start == self.page_end
                 else f"pp. {self.page_start}–{self.page_end}")
        return ", ".join(part for part in (self.document, self.section_path, pages) if part)


class EvidenceNode(BaseModel):
    """A tree node chosen as evidence, with the reasoners' scores."""

    key: str
    doc_key: str
    document: str
    kind: str
    title: str = ""
    text: str = ""
    page_start: int = 0
    page_end: int = 0
    section_path: str = ""
    bbox: list[float] | None = None
    order: int = 0
    graph_score: float = 0.0
    text_score: float = 0.0
    rank: int = 0

    @property
    def citation(self) -> Citation:
        return Citation(document=self.document, doc_key=self.doc_key, node_key=self.key,
                        section_path=self.section_path, page_start=self.page_start, page_end=self.page_end,
                        bbox=self.bbox)

    @property
    def pages(self) -> list[int]:
        return list(range(self.page_start, self.page_end + 1)) if self.page_start else []


class TraceStep(BaseModel):
    """One operator call: what it did, how long it took, what the models cost."""

    operator: str
    seconds: float = 0.0
    model_seconds: float = 0.0  # of which model inference (LLM, embedder, spaCy, cross-encoder)
    llm_calls: int = 0
    tokens: int = 0
    detail: dict[str, Any] = Field(default_factory=dict)


class PlanStep(BaseModel):
    """One operator call of a plan, with its parameters (a serialisable DAG: ``after`` names its inputs)."""

    id: str
    operator: str
    params: dict[str, Any] = Field(default_factory=dict)
    after: list[str] = Field(default_factory=list)


class Plan(BaseModel):
    """The planner's output: the question's category and the operator calls that answer it."""

    question: str
    category: str
    classified_by: str  # "llm" or "heuristic"
    steps: list[PlanStep] = Field(default_factory=list)
    sub_questions: list[dict[str, str]] = Field(default_factory=list)
    operation: str | None = None  # global questions: COUNT, LIST, SUMMARIZE, ANALYZE

    def explain(self) -> str:
        lines = [f"{self.category} (classified by {self.classified_by}): {self.question}"]
        lines += [f"  {s.id}: {s.operator}({', '.join(f'{k}={v!r}' for k, v in s.params.items())})"
                  + (f" after {', '.join(s.after)}" if s.after else "") for s in self.steps]
        return "\n".join(lines)


class Evidence(BaseModel):
    """Retrieval without synthesis: ranked evidence nodes, the plan and the trace."""

    question: str
    nodes: list[EvidenceNode] = Field(default_factory=list)
    plan: Plan | None = None
    trace: list[TraceStep] = Field(default_factory=list)
    count: int | None = None  # global COUNT questions: the number of matching nodes
    groups: dict[str, list[str]] = Field(default_factory=dict)  # multi-hop: evidence keys per sub-question

    @property
    def pages(self) -> dict[str, list[int]]:
        """Pages of the evidence by document."""
        out: dict[str, set[int]] = {}
        for node in self.nodes:
            out.setdefault(node.document, set()).update(node.pages)
        return {doc: sorted(pages) for doc, pages in out.items()}


class Answer(BaseModel):
    """The answer to a question, with the citations of its evidence."""

    question: str
    text: str
    citations: list[Citation] = Field(default_factory=list)
    evidence: list[EvidenceNode] = Field(default_factory=list)
    plan: Plan | None = None
    trace: list[TraceStep] = Field(default_factory=list)
    extractive: bool = False  # True when no LLM wrote it: the ranked evidence passages themselves
