"""Graph_Reasoning's three engines on the node and seed keys of a real question: equal scores, and the median
time of 25 calls of each.

    python docs/eval/plugin-60/pagerank_engines.py [QUESTION [DOCUMENT]]
"""
import asyncio, time, statistics, sys
from bookrag_neo4j.sdk import BookRAG

Q = sys.argv[1] if len(sys.argv) > 1 else "What was PepsiCo's net revenue in 2021?"
DOC = sys.argv[2] if len(sys.argv) > 2 else "PEPSICO_2021_10K.pdf"

async def main():
    rag = BookRAG.from_env(use_llm=False)
    g = await rag.agraph()
    captured = {}
    orig = g.read_rows
    async def spy(name, **params):
        if name.endswith("node_pagerank"):
            captured[name] = params
        return await orig(name, **params)
    g.read_rows = spy
    doc = [d for d in await rag.adocuments() if d.name == DOC][0]
    from bookrag_neo4j.retrieval import scoring
    ev = await rag.aretrieve(Q, doc.key)
    print("engines", [t.engine for t in ev.trace if t.operator == "Graph_Reasoning"], list(captured))
    g.read_rows = orig
    (p,) = captured.values()
    docs = [d for d in await rag.adocuments() if d.key == doc.key]
    async def t(label, fn, n=25):
        ts = []
        for _ in range(n):
            t0 = time.perf_counter(); r = await fn(); ts.append((time.perf_counter() - t0) * 1000)
        print(f"{label:30s} p50 {statistics.median(ts):7.1f} ms  min {min(ts):6.1f}")
        return r
    kw = dict(node_score="sum", damping=0.5)
    a = await t("gds", lambda: scoring.graph_reasoning(g, p["node_keys"], p["source_keys"], documents=docs, engine="gds", **kw))
    b = await t("plugin", lambda: scoring.graph_reasoning(g, p["node_keys"], p["source_keys"], documents=docs, engine="plugin", **kw))
    c = await t("local", lambda: scoring.graph_reasoning(g, p["node_keys"], p["source_keys"], documents=docs, engine="local", **kw))
    print("nodes", len(a), len(b), len(c), "equal gds=plugin", a == b, "plugin=local", b == c,
          "max diff", max(abs(a[k] - b.get(k, -1)) for k in a), max(abs(c[k] - b.get(k, -1)) for k in c))
    await rag.aclose()
asyncio.run(main())
