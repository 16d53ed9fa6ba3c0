"""Each form of the block-similarity reply timed alone on PepsiCo (30 calls each, two rounds): pairs, scores, count, top 3."""
import asyncio, time, neo4j, numpy as np
from bookrag_neo4j.cli.common import library
rag = library(None, use_llm=False)
R = neo4j.RoutingControl.READ
async def main():
    g = await rag.aclient(); d = g._driver
    doc = await rag.adocument("PEPSICO_2021_10K.pdf")
    v = [float(x) for x in np.random.default_rng(0).normal(size=384)]
    Q = {"RETURN 1": "RETURN 1 AS rows",
         "top3": "CALL bookrag.similarities('TreeNode', $doc_key, $vector, 'section', 3) YIELD key, score RETURN collect([key, score]) AS rows",
         "all count": "CALL bookrag.similarities('TreeNode', $doc_key, $vector, 'section', -1) YIELD key, score RETURN count(*) AS rows",
         "all collect scores": "CALL bookrag.similarities('TreeNode', $doc_key, $vector, 'section', -1) YIELD key, score RETURN collect(score) AS rows",
         "all collect pairs": "CALL bookrag.similarities('TreeNode', $doc_key, $vector, 'section', -1) YIELD key, score RETURN collect([key, score]) AS rows",
         "vector param only": "WITH $vector AS v RETURN size(v) AS rows",
    }
    for rnd in range(2):
        for name, q in Q.items():
            for _ in range(5): await d.execute_query(q, doc_key=doc.key, vector=v, routing_=R)
            t = time.perf_counter()
            for _ in range(30): await d.execute_query(q, doc_key=doc.key, vector=v, routing_=R)
            print(f"{name:22s} {(time.perf_counter()-t)/30*1000:.2f} ms")
asyncio.run(main())
