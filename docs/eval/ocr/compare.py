"""Page recall of every method on the originals and on their image-only copies, overall and by half.

    python docs/eval/ocr/compare.py docs/eval/ocr/eval-orig docs/eval/ocr/eval-scan
"""
import json
import sys

from bookrag_neo4j.eval.benchmark import half

orig, scan = sys.argv[1], sys.argv[2]
o = json.load(open(f'{orig}/summary.json')); s = json.load(open(f'{scan}/summary.json'))
print(f"questions {o['questions']} / {s['questions']}; partial: {o.get('partial')} / {s.get('partial')}\n")
print("| method | recall within 5 pages: original | scan | difference | within 10 pages: original | scan | difference |")
print("|---|---|---|---|---|---|---|")
for m in o['methods']:
    a, b = o['methods'][m], s['methods'][m]
    print(f"| {m} | {a['recall@5p']:.3f} | {b['recall@5p']:.3f} | {b['recall@5p']-a['recall@5p']:+.3f} | {a['recall@10p']:.3f} | {b['recall@10p']:.3f} | {b['recall@10p']-a['recall@10p']:+.3f} |")
rows = lambda p: [json.loads(l) for l in open(f'{p}/questions.jsonl')]
ro, rs = rows(orig), rows(scan)
print("\n| method | half | questions | within 5 pages: original | scan |\n|---|---|---|---|---|")
for m in ('bookrag', 'hybrid'):
    for h in ('design', 'check'):
        a = [r['recall@5p'] for r in ro if r['method'] == m and half(r['doc']) == h]
        b = [r['recall@5p'] for r in rs if r['method'] == m and half(r['doc'].removeprefix('scan-')) == h]
        print(f"| {m} | {h} | {len(a)} | {sum(a)/len(a):.3f} | {sum(b)/len(b):.3f} |")
