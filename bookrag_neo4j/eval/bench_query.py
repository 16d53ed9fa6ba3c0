"""``bookrag bench query`` and ``bench scale``: retrieval latency percentiles, with and without model inference,
on one document or on a library of 1, 5, 20... documents.

Each question is retrieved once to warm up, then ``repeat`` times. "Without model inference" is the total
minus the time spent in models (question embedding, spaCy or LLM entity extraction, cross-encoder): the
selectors, node fetch, graph projection and PageRank, text fusion over stored embeddings and the Skyline.
The two selectors run side by side; with an LLM, its section choice overlaps Select_by_Entity's queries, so
the figure without model inference is exact in the LLM-free mode (``--no-llm``) and a lower bound otherwise.
"""

from __future__ import annotations

import statistics
import time
from collections import defaultdict
from typing import Any

from ..methods import Retriever
from ..retrieval import selectors


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


async def bench_query(retriever: Retriever, doc_keys: list[str], questions: list[str], *,
                      repeat: int = 3, method: str = "bookrag") -> dict[str, Any]:
    """Latency of ``retriever.retrieve`` with ``method`` over the documents ``doc_keys`` (one, or a library)."""
    totals, without_model, per_operator = [], [], defaultdict(list)
    nodes = []
    for question in questions:
        await retriever.retrieve(question, doc_keys, method=method)  # warm-up: caches, query plans
        for _ in range(repeat):
            began = time.perf_counter()
            evidence = await retriever.retrieve(question, doc_keys, method=method)
            total = time.perf_counter() - began
            model = sum(t.model_seconds for t in evidence.trace)
            totals.append(total)
            without_model.append(total - model)
            nodes.append(len(evidence.nodes))
            for step in evidence.trace:
                per_operator[step.operator].append(step.seconds - step.model_seconds)

    def ms(values: list[float]) -> dict[str, float]:
        return {"p50_ms": round(percentile(values, 50) * 1000, 1), "p95_ms": round(percentile(values, 95) * 1000, 1)}

    return {
        "questions": len(questions), "runs": len(totals),
        "without_model_inference": ms(without_model), "with_model_inference": ms(totals),
        "per_operator_without_model": {op: ms(v) for op, v in per_operator.items()},
        "mean_evidence_nodes": round(statistics.mean(nodes), 2) if nodes else 0,
    }


async def bench_scale(retriever: Retriever, questions: list[str], *, sizes: list[int],
                      repeat: int = 3, method: str = "bookrag") -> list[dict[str, Any]]:
    """``bookrag bench scale``: the same questions asked of the whole library as it grows: the first N
    complete documents with a knowledge graph (by name), for each N of ``sizes``; latency and library size."""
    library = [d for d in await selectors.scope_documents(retriever.graph, None) if d.graph_version]
    rows = []
    for size in sizes:
        if size > len(library):
            break
        keys = [d.key for d in library[:size]]
        (counts,) = await retriever.graph.read("library/library_size", doc_keys=keys)
        report = await bench_query(retriever, keys, questions, repeat=repeat, method=method)
        rows.append({"documents": size, **counts, "without_model_inference": report["without_model_inference"],
                     "with_model_inference": report["with_model_inference"],
                     "mean_evidence_nodes": report["mean_evidence_nodes"]})
    return rows
