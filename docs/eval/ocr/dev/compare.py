"""Every method with --ocr off and --ocr auto, on the dev documents OCR changes (a figure's words read, or a page
that looks scanned), by set and by half; the other dev documents parse the same either way.

    python docs/eval/ocr/dev/compare.py docs/eval/ocr/dev
"""
import json
import sys
from pathlib import Path

from bookrag_neo4j.eval.benchmark import half

root = Path(sys.argv[1])


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in (path / "questions.jsonl").read_text().splitlines()]


for bench in ("fb", "mmlb"):
    off, auto = rows(root / f"off-{bench}"), rows(root / f"auto-{bench}")
    methods = list(dict.fromkeys(r["method"] for r in off))
    print(f"\n{bench}: {len({r['id'] for r in off})} questions\n")
    print("| method | within 5 pages: off | auto | design: off | auto | check: off | auto | within 10 pages: off | auto |")
    print("|---|---|---|---|---|---|---|---|---|")
    for m in methods:
        def mean(rs, key, h=None):
            v = [r[key] for r in rs if r["method"] == m and (h is None or half(r["doc"]) == h)]
            return sum(v) / len(v) if v else float("nan")
        cells = [mean(off, "recall@5p"), mean(auto, "recall@5p"), mean(off, "recall@5p", "design"),
                 mean(auto, "recall@5p", "design"), mean(off, "recall@5p", "check"), mean(auto, "recall@5p", "check"),
                 mean(off, "recall@10p"), mean(auto, "recall@10p")]
        print(f"| {m} | " + " | ".join(f"{c:.3f}" for c in cells) + " |")
    changed = sorted({(a["id"], a["method"]) for a, b in zip(off, auto, strict=True)
                      if [u["key"] for u in a["retrieved"]] != [u["key"] for u in b["retrieved"]]})
    print(f"\nrows whose units differ: {len(changed)} of {len(off)}; "
          f"questions: {len({i for i, _ in changed})}")
