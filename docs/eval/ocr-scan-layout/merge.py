"""One eval folder from several runs of the same methods on different questions (their questions.jsonl put
together, and a summary.json with each method's mean recall within 5 and 10 pages), for compare.py:

    python docs/eval/ocr-scan-layout/merge.py OUT RUN [RUN ...]
"""
import json
import sys
from pathlib import Path

out, runs = Path(sys.argv[1]), sys.argv[2:]
rows = [json.loads(line) for run in runs for line in open(f"{run}/questions.jsonl")]
out.mkdir(parents=True, exist_ok=True)
(out / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
methods = dict.fromkeys(r["method"] for r in rows)
mean = lambda m, k: round(sum(r[k] for r in rows if r["method"] == m) / sum(r["method"] == m for r in rows), 4)
summary = {"questions": len({r["id"] for r in rows}), "partial": any(json.load(open(f"{run}/summary.json")).get("partial")
                                                                    for run in runs),
           "methods": {m: {"recall@5p": mean(m, "recall@5p"), "recall@10p": mean(m, "recall@10p")} for m in methods}}
(out / "summary.json").write_text(json.dumps(summary, indent=1))
