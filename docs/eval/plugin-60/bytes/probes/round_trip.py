"""Replays the captured selection queries (capture.py) as a managed transaction and as an auto-commit one, 10 x 20 calls."""
import asyncio, time, pickle, neo4j
from bookrag_neo4j.cli.common import library
from bookrag_neo4j.db.queries import load_query
calls = pickle.load(open("calls.pkl", "rb"))
rag = library(None, use_llm=False)
R = neo4j.RoutingControl.READ
async def main():
    g = await rag.aclient(); d = g._driver
    p = [p for n, p, k in calls if n == "retrieval/select_by_section"][1]
    q = load_query("retrieval/select_by_section")
    async def eq(): await d.execute_query(q, p, routing_=R)
    async def ac():
        async with d.session(database="neo4j", default_access_mode=neo4j.READ_ACCESS) as s:
            r = await s.run(q, p); await r.single()
    async def ac_nobm():
        async with d.session(database="neo4j", default_access_mode=neo4j.READ_ACCESS, bookmark_manager=None) as s:
            r = await s.run(q, p); await r.single()
    fs = {"execute_query": eq, "auto-commit": ac, "auto-commit no bm": ac_nobm}
    res = {k: [] for k in fs}
    for f in fs.values():
        for _ in range(10): await f()
    for rnd in range(10):
        for k, f in fs.items():
            s = time.perf_counter()
            for _ in range(20): await f()
            res[k].append((time.perf_counter()-s)/20*1000)
    for k, v in res.items():
        v.sort(); print(f"{k:20s} median {v[len(v)//2]:.2f} ms  min {v[0]:.2f}")
asyncio.run(main())
