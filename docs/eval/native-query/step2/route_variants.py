"""A sweep of routing variants over the dev questions (output: route_variants.txt); not product code."""
import asyncio
from pathlib import Path

from bookrag_neo4j import BookRAG
from bookrag_neo4j.db.lucene import lucene_terms
from bookrag_neo4j.eval.benchmark import half, load_benchmark

SETS = Path('/work/shared/benchmarks')
def variant(agg, sections, top):
    where = "true" if sections else "node.kind <> 'section'"
    part = lambda call: f"""  {call} YIELD node, score
  WITH node, score WHERE {where}
  WITH collect(node.doc_key) AS hits
  UNWIND range(0, size(hits) - 1) AS rank
  WITH hits[rank] AS doc_key, 1.0 / ($k + rank + 1) AS share
  RETURN doc_key, {'max' if agg=='best' else 'sum'}(share) AS share"""
    return f"""CALL () {{
{part("CALL db.index.vector.queryNodes('tree_node_embedding', $top, $vector)")}
  UNION ALL
{part("CALL db.index.fulltext.queryNodes('tree_node_text', $query, {limit: $top})")}
}}
WITH doc_key, sum(share) AS score WHERE doc_key IN $doc_keys
WITH doc_key, score ORDER BY score DESC, doc_key
RETURN collect([doc_key, score]) AS rows"""
async def main():
    async with BookRAG(use_llm=False) as rag:
        db = await rag.aclient(); docs = await rag.adocuments(); by_name = {d.name: d for d in docs}; keys=[d.key for d in docs]
        qs=[]
        for name in ("financebench","mmlongbench"):
            for q in load_benchmark(SETS/name).questions:
                if q.doc in by_name: qs.append((name, half(q.doc), q, (await rag.models.embedder.embed([q.question]))[0]))
        for agg in ("sum","best"):
          for sections in (False, True):
            for top in (50, 100, 300):
                res={}
                for name,h,q,v in qs:
                    rows=(await db.run(variant(agg,sections,top), {"doc_keys":keys,"vector":list(map(float,v)),"query":lucene_terms(q.question),"top":top,"k":60}, read=True))[0]["rows"]
                    order=[k for k,_ in rows]; key=by_name[q.doc].key
                    r=order.index(key)+1 if key in order else 99
                    res.setdefault((name,h),[]).append(r)
                print(agg, sections, top, ' '.join(f"{n[:2]}-{h[:1]} @1 {sum(x<=1 for x in r)/len(r):.2f} @5 {sum(x<=5 for x in r)/len(r):.2f}" for (n,h),r in sorted(res.items())), flush=True)
asyncio.run(main())
