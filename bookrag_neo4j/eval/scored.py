"""One scored row of an evaluation: a (question, method) pair's evidence and measures, as ``bookrag eval`` writes it
to ``questions.jsonl`` (one :meth:`EvalRow.record` a line, the measures under their written names: ``recall@5p``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class RetrievedUnit(BaseModel):
    """One unit of evidence a method returned: its key, kind, pages and document."""

    key: str
    kind: str
    pages: list[int]
    doc: str


class EvalRow(BaseModel):
    """A (question, method) row: the question and its gold data, what was retrieved, page recall (all units, the
    first 5 and 10 units, the first 5 and 10 pages shown), cost; ``scope``, ``doc_rank`` and ``documents`` in a
    library-wide run (where the own document first appears among the evidence's documents); ``error`` on a miss;
    the answer and its scores in qa mode (``judge`` None when the judge gave no verdict)."""

    model_config = ConfigDict(populate_by_name=True)

    benchmark: str
    id: str
    doc: str
    method: str
    question: str
    category: str
    sources: list[str]
    doc_type: str
    gold_answer: str
    gold_pages: list[int]
    retrieved: list[RetrievedUnit]
    units: int
    retrieved_pages: list[int]
    recall: float
    recall_at_5: float = Field(alias="recall@5")
    recall_at_10: float = Field(alias="recall@10")
    pages: int
    recall_at_5p: float = Field(alias="recall@5p")
    recall_at_10p: float = Field(alias="recall@10p")
    seconds: float
    llm_calls: int
    tokens: int
    scope: str | None = None
    doc_rank: int | None = None
    documents: int | None = None
    error: str | None = None
    answer: str | None = None
    extracted: str | None = None
    score: float | None = None
    em: float | None = None
    f1: float | None = None
    inclusion: float | None = None
    judge: float | None = None

    def record(self) -> dict[str, Any]:
        """The row as ``questions.jsonl`` holds it: the measures under their written names, and only the fields
        this run set (no ``answer`` in retrieval mode, no ``doc_rank`` per document)."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)
