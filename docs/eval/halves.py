"""Page recall within 5 and 10 pages by method, on each dev set whole and on its two halves (design, check: a hash
of the file name, ``bookrag_neo4j.eval.benchmark.half``), from ``bookrag eval --out`` folders.

    python docs/eval/halves.py docs/eval/native-query/step2-mmlb docs/eval/native-query/step2-fb > halves.md
"""

import json
import sys
from collections import defaultdict
from pathlib import Path

from bookrag_neo4j.eval.benchmark import HALVES, half


def table(folders: list[str]) -> str:
    scores: dict[tuple[str, str, str], list[tuple[float, float]]] = defaultdict(list)
    names, methods = [], []
    for folder in folders:
        name = json.loads((Path(folder) / "summary.json").read_text())["benchmark"]
        names.append(name)
        for line in (Path(folder) / "questions.jsonl").read_text().splitlines():
            row = json.loads(line)
            methods += [row["method"]] if row["method"] not in methods else []
            for part in ("all", half(row["doc"])):
                scores[(name, part, row["method"])].append((row["recall@5p"], row["recall@10p"]))
    head = "| method | " + " | ".join(f"{n} 5 / 10 pages | {n} design / check, 5 pages" for n in names) + " |"
    lines = [head, "|---" * (1 + 2 * len(names)) + "|"]
    for method in methods:
        cells = []
        for name in names:
            every = scores[(name, "all", method)]
            mean = [sum(s[k] for s in every) / len(every) for k in (0, 1)]
            parts = [scores[(name, h, method)] for h in HALVES]
            cells += [f"{mean[0]:.3f} / {mean[1]:.3f}",
                      " / ".join(f"{sum(s[0] for s in p) / len(p):.3f}" if p else "–" for p in parts)]
        lines.append(f"| `{method}` | " + " | ".join(cells) + " |")
    counts = {n: {h: len(scores[(n, h, methods[0])]) for h in HALVES} for n in names}
    return "\n".join(lines) + f"\n\nQuestions per half: {json.dumps(counts)}\n"


if __name__ == "__main__":
    print(table(sys.argv[1:]))
