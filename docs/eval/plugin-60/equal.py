"""The plugin against the Cypher path on every document of the library (BOOKRAG_NEO4J_INSTANCE default): block
similarities, nearest blocks and entity links, compared exactly; and each engine's time a block_similarities call.

    python docs/eval/plugin-60/equal.py
"""
import asyncio, time, json, numpy as np
from bookrag_neo4j.sdk import BookRAG
from bookrag_neo4j.retrieval.document_blocks import block_similarities, document_blocks
from bookrag_neo4j.retrieval.linking import link_entities
async def main():
    rag = BookRAG.from_env(use_llm=False)
    g = await rag.aclient()
    docs = await rag.adocuments()
    qs = ["What was the total revenue?", "How many people use the internet?", "Which model performs best?"]
    vecs = await rag.models.embedder.embed(qs)
    ents = ["revenue", "internet", "model"]
    evecs = await rag.models.embedder.embed(ents)
    diffs = 0; t = {"plugin": 0.0, "cypher": 0.0}; n = 0
    for doc in docs:
        blocks = await document_blocks(g, doc, max_chars=4000)
        for v in vecs:
            out = {}
            for eng in ("cypher", "plugin"):
                t0 = time.perf_counter(); out[eng] = await block_similarities(g, doc, blocks, v, engine=eng); t[eng] += time.perf_counter() - t0
            n += 1
            if not np.array_equal(out["cypher"], out["plugin"], equal_nan=True): diffs += 1; print("DIFF sims", doc.name)
            rows = {eng: await g.read(q, doc_keys=[doc.key], embedding=list(map(float, v)), top=10) for eng, q in (("cypher", "retrieval/nearest_nodes"), ("plugin", "plugin/nearest_nodes"))}
            if [(r["key"], r["score"]) for r in rows["cypher"]] != [(r["key"], r["score"]) for r in rows["plugin"]]: diffs += 1; print("DIFF nearest", doc.name)
        links = {eng: await link_entities(g, doc, ents, evecs, threshold=0.8, top=5, engine=eng) for eng in ("cypher", "plugin")}
        raw = {eng: await g.read_rows(q, doc_key=doc.key, entities=[{"name": e, "vector": list(map(float, v))} for e, v in zip(ents, evecs)], threshold=0.8, top=5) for eng, q in (("cypher", "retrieval/link_entities"), ("plugin", "plugin/link_entities"))}
        if links["cypher"] != links["plugin"] or raw["cypher"] != raw["plugin"]: diffs += 1; print("DIFF links", doc.name, raw["cypher"][:1], raw["plugin"][:1])
    print("docs", len(docs), "diffs", diffs, {k: round(v / n * 1000, 1) for k, v in t.items()}, "ms per block_similarities call")
    await rag.aclose()
asyncio.run(main())
