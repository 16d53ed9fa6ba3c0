"""``bookrag bench cypher``: how often text2Cypher writes a valid query, and how often it returns something.

    report = await bench_cypher(retriever, [(doc_key, "What does Table 3 show?"), ...])
    report.written, report.valid, report.returned     # shares of the questions

For each question, text2Cypher writes its query (the configured LLM over the schema; the offline intent
templates without one, or when the LLM writes none) and runs it through the read-only gate. *Written*: a query
came from the LLM; *fell back*: a template answered instead; *valid*: the query ran (the gate accepted it and
the server executed it); *returned*: it returned at least one row with a ``key``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from pydantic import BaseModel

from ..methods import Retriever


class CypherQuestion(BaseModel):
    """One question: where its query came from, the query, its error, its rows and those with a ``key``."""

    question: str
    source: str  # "llm", or the template that answered ("template superrag/captioned")
    query: str  # empty: none was written
    error: str | None
    rows: int
    keys: int
    seconds: float


class CypherBench(BaseModel):
    """The shares of the questions whose query was written, fell back, was missing, valid, returned keys."""

    questions: int
    written: float
    fell_back: float
    no_query: float
    valid: float
    returned: float
    mean_seconds: float
    per_question: list[CypherQuestion]


async def bench_cypher(retriever: Retriever, asked: Sequence[tuple[str, str]]) -> CypherBench:
    """Run text2Cypher on (doc_key, question) pairs; the shares and one row per question."""
    rows: list[CypherQuestion] = []
    for doc_key, question in asked:
        began = time.perf_counter()
        run = await retriever.cypher(question, [doc_key])
        rows.append(CypherQuestion(question=question, source=run.source, query=run.query, error=run.error,
                                   rows=len(run.rows), keys=sum(isinstance(r.get("key"), str) for r in run.rows),
                                   seconds=round(time.perf_counter() - began, 2)))
    n = len(rows) or 1

    def share(test: Callable[[CypherQuestion], object]) -> float:
        return round(sum(1 for r in rows if test(r)) / n, 3)

    return CypherBench(
        questions=len(rows),
        written=share(lambda r: r.source == "llm" and r.query),
        fell_back=share(lambda r: r.source.startswith("template")),
        no_query=share(lambda r: not r.query),
        valid=share(lambda r: r.query and r.error is None),
        returned=share(lambda r: r.keys > 0),
        mean_seconds=round(sum(r.seconds for r in rows) / n, 2),
        per_question=rows,
    )
