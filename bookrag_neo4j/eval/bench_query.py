"""``bookrag bench query``: retrieval latency percentiles, with and without model inference, on one document or
on a set of documents (``bench scale`` asks it of a growing library: :mod:`.bench_scale`).

Each question is retrieved once to warm up, then ``repeat`` times. "Without model inference" is the wall time
with the models (question embedding, spaCy or LLM entity extraction, cross-encoder) taken as instant: the
selectors, node fetch, graph projection and PageRank, text fusion over stored embeddings and the Skyline
(:func:`model_free_seconds`). The executor runs the plan in waves, the steps whose inputs are ready side by
side (the question's embedding next to its entity extraction, then the two selectors), so a wave without its
models lasts as long as its slowest step's non-model part: subtracting every step's model time from the total
would count overlapping model time twice (a retrieval on 3 documents measured 118 ms with 113 ms "in models",
of which Embed's 40 ms ran beside Extract's 73). With an LLM, its section choice overlaps Select_by_Entity's
queries, so the figure is exact in the LLM-free mode (``--no-llm``) and a lower bound otherwise.
"""

from __future__ import annotations

import statistics
import time
from collections import defaultdict
from graphlib import TopologicalSorter

from pydantic import BaseModel

from ..methods import Retriever
from ..retrieval.results import Evidence


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def model_free_seconds(evidence: Evidence, total: float) -> float:
    """``total`` (a retrieval's wall time) less what its models saved nothing else from: per wave of the plan's
    steps (the executor's: every step whose inputs are ready, side by side), the slowest step's seconds less
    the slowest step's non-model seconds; steps outside the plan (the planning step) ran alone, all their model
    time counts. A trace that does not match its plan (repeated step ids) falls back to subtracting every
    step's model time."""
    ids = [t.step for t in evidence.trace]
    planned = {s.id: s for s in evidence.plan.steps} if evidence.plan else {}
    if len(set(ids)) != len(ids):
        return total - sum(t.model_seconds for t in evidence.trace)
    trace = {t.step: t for t in evidence.trace}
    sorter = TopologicalSorter({i: [a for a in planned[i].after if a in trace] for i in ids if i in planned})
    sorter.prepare()
    saved = sum(t.model_seconds for t in evidence.trace if t.step not in planned)
    while sorter.is_active():
        wave = sorter.get_ready()
        saved += (max(trace[i].seconds for i in wave)
                  - max(trace[i].seconds - trace[i].model_seconds for i in wave))
        sorter.done(*wave)
    return total - saved


class Percentiles(BaseModel):
    p50_ms: float
    p95_ms: float

    @classmethod
    def of(cls, seconds: list[float]) -> Percentiles:
        return cls(p50_ms=round(percentile(seconds, 50) * 1000, 1), p95_ms=round(percentile(seconds, 95) * 1000, 1))


class QueryBench(BaseModel):
    """``bookrag bench query``'s report: what was asked of which documents, and its latency percentiles."""

    document: str | None = None  # the document asked (or "the library (N documents)"), named by the CLI
    pages: int | None = None
    questions: int
    runs: int
    without_model_inference: Percentiles
    with_model_inference: Percentiles
    per_operator_without_model: dict[str, Percentiles]
    mean_evidence_nodes: float


async def bench_query(retriever: Retriever, doc_keys: list[str] | None, questions: list[str], *,
                      repeat: int = 3, method: str = "bookrag") -> QueryBench:
    """Latency of ``retriever.retrieve`` with ``method`` over the documents ``doc_keys`` (one, several, or None:
    the whole library)."""
    totals: list[float] = []
    without_model: list[float] = []
    per_operator: dict[str, list[float]] = defaultdict(list)
    nodes: list[int] = []
    for question in questions:
        await retriever.retrieve(question, doc_keys, method=method)  # warm-up: caches, query plans
        for _ in range(repeat):
            began = time.perf_counter()
            evidence = await retriever.retrieve(question, doc_keys, method=method)
            total = time.perf_counter() - began
            totals.append(total)
            without_model.append(model_free_seconds(evidence, total))
            nodes.append(len(evidence.evidence))
            for step in evidence.trace:
                per_operator[step.operator].append(step.seconds - step.model_seconds)

    return QueryBench(questions=len(questions), runs=len(totals), without_model_inference=Percentiles.of(without_model),
                      with_model_inference=Percentiles.of(totals),
                      per_operator_without_model={op: Percentiles.of(v) for op, v in per_operator.items()},
                      mean_evidence_nodes=round(statistics.mean(nodes), 2) if nodes else 0)
