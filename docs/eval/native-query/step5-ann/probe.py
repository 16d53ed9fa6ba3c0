"""Exact per-document entity links against the entity vector index's top K, kept to the document: the time of
each, and how often the index's top K all pass the link threshold (its answer may be cut short). The default
managed instance's dev library; `python docs/eval/native-query/step5-ann/probe.py 50 100 200 400`."""
import asyncio
import json
import sys
import time
from pathlib import Path

import numpy as np
from neo4j import GraphDatabase

from bookrag_neo4j.config import Settings
from bookrag_neo4j.eval.benchmark import load_benchmark
from bookrag_neo4j.kg.names import identity
from bookrag_neo4j.llm.factory import build_embedder
from bookrag_neo4j.ops.query import question_entities

pw = (Path.home() / ".local/share/bookrag-neo4j/neo4j/default/password").read_text().strip()
drv = GraphDatabase.driver("bolt://localhost:7687", auth=("neo4j", pw))
exact_q = (Path(__file__).resolve().parents[4] / 'cypher/retrieval/link_entities.cypher').read_text()
docs = {r["name"]: r["key"] for r in drv.execute_query("MATCH (d:Document) RETURN d.name AS name, d.key AS key").records}
settings = Settings()
emb = build_embedder(settings)
class Ctx:  # question_entities needs llm + settings only
    llm = None
    settings = settings
thr = (1 + settings.link_threshold) / 2
top = settings.link_per_entity
Ks = [int(k) for k in sys.argv[1:]] or [50, 100, 200]
ann_q = """UNWIND range(0, size($entities)-1) AS i
CALL (i) { CALL db.index.vector.queryNodes('entity_embedding', $k, $entities[i].vector) YIELD node, score
  RETURN collect([node.doc_key, node.key, score]) AS hits }
RETURN i, hits"""
stats = {k: [0, 0, 0] for k in Ks}  # questions differing, overflow, total
times = {k: [] for k in Ks}; ex_t = []
n = 0
for bench in ("financebench", "mmlongbench"):
    b = load_benchmark(Path(__file__).resolve().parents[4].parent / "shared" / "benchmarks" / bench)
    for q in b.questions:
        if q.doc not in docs: continue
        names = asyncio.run(question_entities(Ctx, q.question))
        if not names: continue
        vecs = emb.embed_sync(names) if hasattr(emb, "embed_sync") else asyncio.run(emb.embed(names))
        ents = [{"name": identity(nm), "vector": list(map(float, v))} for nm, v in zip(names, vecs)]
        t = time.perf_counter()
        rows = drv.execute_query(exact_q, doc_key=docs[q.doc], entities=ents, threshold=thr, top=top).records[0][0]
        ex_t.append(time.perf_counter() - t)
        exact = {i: [(k, round(s, 6)) for k, s in l if s < 1.0] for i, l in rows}
        n += 1
        for k in Ks:
            t = time.perf_counter()
            recs = drv.execute_query(ann_q, entities=ents, k=k).records
            times[k].append(time.perf_counter() - t)
            ann = {}
            over = False
            for r in recs:
                hits = r["hits"]
                if len(hits) == k and hits[-1][2] >= thr: over = True
                mine = sorted([(key, round(s, 6)) for d, key, s in hits if d == docs[q.doc] and s >= thr], key=lambda h: (-h[1], h[0]))
                if mine: ann[r["i"]] = mine
            stats[k][1] += over; stats[k][2] += 1
print("questions", n, "exact p50 ms", round(1000*np.median(ex_t), 1))
for k in Ks:
    print("K", k, "cut short", stats[k][1], "of", stats[k][2], "ann p50 ms", round(1000*np.median(times[k]), 1))
