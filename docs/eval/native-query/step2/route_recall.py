"""How often routing a question over the whole library keeps the question's own document: each dev question's
document's rank among the library's documents (retrieval/routing.py, every document ranked), on both halves of
each dev set (benchmark.half). Writes route_recall.json beside this file.

    python docs/eval/native-query/step2/route_recall.py   # the default instance's dev library, LLM-free
"""

import asyncio
import json
from pathlib import Path

from bookrag_neo4j import BookRAG
from bookrag_neo4j.eval.benchmark import HALVES, half, load_benchmark
from bookrag_neo4j.retrieval.routing import route

HERE = Path(__file__).resolve().parent
SETS = HERE.parents[3] / ".." / "shared" / "benchmarks"
KEEP = (1, 3, 5, 10)


async def main() -> None:
    async with BookRAG(use_llm=False) as rag:
        db = await rag.aclient()
        documents = await rag.adocuments()
        by_name = {d.name: d for d in documents}
        results = {}
        for name in ("financebench", "mmlongbench"):
            bench = load_benchmark(SETS / name)
            ranks: dict[str, list[int]] = {h: [] for h in HALVES}
            for q in bench.questions:
                if q.doc not in by_name:
                    continue
                (vector,) = await rag.models.embedder.embed([q.question])
                ranked, _ = await route(db, documents, q.question, vector, keep=len(documents) - 1)
                order = [d.name for d in ranked]
                ranks[half(q.doc)].append(order.index(q.doc) + 1 if q.doc in order else len(documents))
            results[name] = {h: {"questions": len(r), **{f"within {k}": round(sum(x <= k for x in r) / len(r), 3)
                                                          for k in KEEP}, "ranks": r}
                             for h, r in ranks.items() if r}
        results["documents"] = len(documents)
    (HERE / "route_recall.json").write_text(json.dumps(results, indent=1))
    for name in ("financebench", "mmlongbench"):
        for h, r in results[name].items():
            print(name, h, {k: v for k, v in r.items() if k != "ranks"})


asyncio.run(main())
