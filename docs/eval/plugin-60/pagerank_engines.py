"""Graph_Reasoning's three engines on the node and seed keys of a real question: equal scores, and the median
time of 25 calls of each.

    python docs/eval/plugin-60/pagerank_engines.py [QUESTION [DOCUMENT]]
"""
import asyncio, sys
from pagerank_common import question_params, timed
from bookrag_neo4j.retrieval import reasoners

Q = sys.argv[1] if len(sys.argv) > 1 else "What was PepsiCo's net revenue in 2021?"
DOC = sys.argv[2] if len(sys.argv) > 2 else "PEPSICO_2021_10K.pdf"

async def main():
    rag, g, doc, p = await question_params(Q, DOC)
    docs = [d for d in await rag.adocuments() if d.key == doc.key]
    t = lambda label, fn: timed(label, fn, n=25)
    kw = dict(node_score="sum", damping=0.5)
    a = await t("gds", lambda: reasoners.graph_reasoning(g, p["node_keys"], p["source_keys"], documents=docs, engine="gds", **kw))
    b = await t("plugin", lambda: reasoners.graph_reasoning(g, p["node_keys"], p["source_keys"], documents=docs, engine="plugin", **kw))
    c = await t("local", lambda: reasoners.graph_reasoning(g, p["node_keys"], p["source_keys"], documents=docs, engine="local", **kw))
    print("nodes", len(a), len(b), len(c), "equal gds=plugin", a == b, "plugin=local", b == c,
          "max diff", max(abs(a[k] - b.get(k, -1)) for k in a), max(abs(c[k] - b.get(k, -1)) for k in c))
    await rag.aclose()
asyncio.run(main())
