"""The questions whose recall within 5 pages moved between two eval runs of the same questions, for some methods:

    python docs/eval/ocr-scan-layout/diffq.py BEFORE AFTER bookrag,hybrid
"""
import json, sys
from bookrag_neo4j.eval.benchmark import half
a, b = sys.argv[1], sys.argv[2]
meths = sys.argv[3].split(",")
rows = lambda p: {(r['method'], r['id']): r for r in map(json.loads, open(f'{p}/questions.jsonl'))}
ra, rb = rows(a), rows(b)
for (m, q), r in sorted(ra.items()):
    if m not in meths: continue
    s = rb[(m, q)]
    if abs(r['recall@5p'] - s['recall@5p']) > 1e-9:
        print(m, q, half(r['doc'].removeprefix('scan-')), r['doc'][:30], round(r['recall@5p'],2), '->', round(s['recall@5p'],2), r.get('gold_pages') or r.get('evidence_pages'), [ (x['kind'][:3], x['pages']) for x in r['retrieved'][:5]], '->', [(x['kind'][:3], x['pages']) for x in s['retrieved'][:5]])
