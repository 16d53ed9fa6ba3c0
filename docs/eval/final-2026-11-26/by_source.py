"""Recall within 5 pages by MMLongBench evidence source, summed over questions, for a few methods of one eval:
``python docs/eval/final-2026-11-26/by_source.py docs/eval/final-2026-11-26/eval-mmlb/questions.jsonl.gz``."""
import collections
import gzip
import json
import sys

METHODS = ("bookrag", "superrag", "hybrid", "bm25")
by_question: dict[str, dict[str, dict]] = collections.defaultdict(dict)
for line in gzip.open(sys.argv[1], "rt"):
    row = json.loads(line)
    by_question[row["id"]][row["method"]] = row
totals: dict[str, list[float]] = collections.defaultdict(lambda: [0.0] * (len(METHODS) + 1))
for rows in by_question.values():
    source = ",".join(sorted(rows["bookrag"]["sources"])) or "none"
    totals[source][0] += 1
    for i, method in enumerate(METHODS, 1):
        totals[source][i] += rows[method]["recall@5p"]
print("| sources | questions | " + " | ".join(METHODS) + " |")
print("|---|---" + "|---" * len(METHODS) + "|")
for source, (n, *recall) in sorted(totals.items(), key=lambda kv: -kv[1][0]):
    print(f"| {source} | {n:.0f} | " + " | ".join(f"{r:.1f}" for r in recall) + " |")
