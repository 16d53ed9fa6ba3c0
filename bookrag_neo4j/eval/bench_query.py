"""``bookrag bench query``: retrieval latency percentiles, with and without model inference.

Each question is retrieved once to warm up, then ``repeat`` times. "Without model inference" is the total
minus the time spent in models (question embedding, spaCy or LLM entity extraction, cross-encoder): the
selectors, node fetch, graph projection and PageRank, text fusion over stored embeddings and the Skyline.
"""

from __future__ import annotations

import json
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from ..retrieval.agent import RetrievalAgent


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def benchmark_questions(folder: Path, document: str) -> list[dict[str, Any]]:
    """Questions about ``document`` from a benchmark folder's ``questions.jsonl``."""
    rows = [json.loads(line) for line in (folder / "questions.jsonl").read_text().splitlines() if line.strip()]
    return [r for r in rows if r["doc"] == document]


async def bench_query(agent: RetrievalAgent, doc_key: str, questions: list[str], *, repeat: int = 3) -> dict[str, Any]:
    totals, without_model, per_operator = [], [], defaultdict(list)
    nodes = []
    for question in questions:
        await agent.retrieve(question, [doc_key])  # warm-up: caches, query plans
        for _ in range(repeat):
            began = time.perf_counter()
            evidence = await agent.retrieve(question, [doc_key])
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
