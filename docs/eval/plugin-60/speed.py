"""Median of 7 calls of the named queries on the two largest documents of the library: the top 10 blocks and every
block's similarity, in Cypher and in the plugin.

    python docs/eval/plugin-60/speed.py
"""
import asyncio, time
from bookrag_neo4j.sdk import BookRAG
async def main():
    rag = BookRAG.from_env(use_llm=False)
    g = await rag.aclient()
    docs = sorted(await rag.adocuments(), key=lambda d: -(d.tree_nodes or 0))[:2]
    (v,) = await rag.models.embedder.embed(["What was the total revenue?"])
    v = list(map(float, v))
    for doc in docs:
        for name, q, kw in (("cypher top10", "retrieval/nearest_nodes", dict(doc_keys=[doc.key], embedding=v, top=10)),
                            ("plugin top10", "plugin/nearest_nodes", dict(doc_keys=[doc.key], embedding=v, top=10)),
                            ("cypher all", "retrieval/block_similarities", dict(doc_key=doc.key, vector=v)),
                            ("plugin all", "plugin/block_similarities", dict(doc_key=doc.key, vector=v))):
            ts = []
            for _ in range(7):
                t0 = time.perf_counter(); await g.read(q, **kw); ts.append(time.perf_counter() - t0)
            ts.sort(); print(doc.name[:25], doc.tree_nodes, name, round(ts[3] * 1000, 1), "ms")
    await rag.aclose()
asyncio.run(main())
