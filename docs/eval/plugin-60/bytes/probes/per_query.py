"""Per-query server time vs client time for the bench questions on PepsiCo (warm)."""
import asyncio, time, sys, cProfile, pstats
from collections import defaultdict
from bookrag_neo4j.cli.common import library
from bookrag_neo4j.db import client as dbc

QS = ["What was PepsiCo's net revenue in 2021?", "How many tables are in the report?",
      "Which is larger, the Frito-Lay North America or the Quaker Foods North America operating profit?",
      "What does the company say about climate change?"]
times = defaultdict(list)
orig_rows = dbc.Neo4jClient._rows
orig_run = dbc.Neo4jClient.run
async def _rows(self, name, params, routing):
    t = time.perf_counter(); r = await orig_rows(self, name, params, routing)
    times[name].append(time.perf_counter() - t); return r
dbc.Neo4jClient._rows = _rows
rag = library(None, use_llm=False)
async def main():
    db = await rag.aclient()
    doc = await rag.adocument("PEPSICO_2021_10K.pdf")
    r = rag.retriever(db)
    for q in QS:
        for _ in range(3): await r.retrieve(q, [doc.key], method="bookrag")
    times.clear()
    prof = cProfile.Profile() if "-p" in sys.argv else None
    t0 = time.perf_counter(); c0 = time.process_time()
    if prof: prof.enable()
    n = 0
    for _ in range(5):
        for q in QS:
            await r.retrieve(q, [doc.key], method="bookrag"); n += 1
    if prof: prof.disable()
    tot = time.perf_counter() - t0; print(f"client cpu per question {(time.process_time()-c0)/n*1000:.1f} ms")
    print(f"total per question {tot/n*1000:.1f} ms")
    for k, v in sorted(times.items(), key=lambda kv: -sum(kv[1])):
        print(f"{k:50s} calls/q {len(v)/n:4.1f}  ms/q {sum(v)/n*1000:6.1f}")
    if prof:
        pstats.Stats(prof).sort_stats(sys.argv[2] if len(sys.argv) > 2 else "tottime").print_stats(45)
asyncio.run(main())
