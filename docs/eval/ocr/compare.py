"""Page recall of every method on the originals and on their image-only copies (one or more runs), overall and
by half, within 5 and 10 pages.

    python docs/eval/ocr/compare.py docs/eval/ocr/eval-orig docs/eval/ocr/eval-scan [MORE-SCAN-RUNS ...]
"""
import json
import sys

from bookrag_neo4j.eval.benchmark import half

orig, scans = sys.argv[1], sys.argv[2:]
summary = lambda p: json.load(open(f'{p}/summary.json'))
o, ss = summary(orig), [summary(s) for s in scans]
print(f"questions {o['questions']} / {' / '.join(str(s['questions']) for s in ss)}; "
      f"partial: {o.get('partial')} / {' / '.join(str(s.get('partial')) for s in ss)}\n")
names = [p.rstrip('/').split('/')[-1] for p in scans]
for k, label in (('recall@5p', 'within 5 pages'), ('recall@10p', 'within 10 pages')):
    print(f"| {label}: method | original | " + " | ".join(f"{n} | difference" for n in names) + " |")
    print("|---" * (2 + 2 * len(names)) + "|")
    for m in o['methods']:
        a = o['methods'][m][k]
        cells = " | ".join(f"{s['methods'][m][k]:.3f} | {s['methods'][m][k] - a:+.3f}" for s in ss if m in s['methods'])
        print(f"| {m} | {a:.3f} | {cells} |")
    print()
rows = lambda p: [json.loads(l) for l in open(f'{p}/questions.jsonl')]
ro, rss = rows(orig), [rows(s) for s in scans]
print("| method | half | questions | within 5 pages: original | " + " | ".join(names) + " |")
print("|---" * (4 + len(names)) + "|")
mean = lambda xs: sum(xs) / len(xs)
for m in o['methods']:
    for h in ('design', 'check'):
        a = [r['recall@5p'] for r in ro if r['method'] == m and half(r['doc']) == h]
        bs = [[r['recall@5p'] for r in rs if r['method'] == m and half(r['doc'].removeprefix('scan-')) == h]
              for rs in rss]
        print(f"| {m} | {h} | {len(a)} | {mean(a):.3f} | " + " | ".join(f"{mean(b):.3f}" for b in bs) + " |")
