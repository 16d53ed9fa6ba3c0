"""Each question asked of its own document and of the whole library, side by side: page recall within 5 pages on
each dev set's halves (design / check), the library-wide figure as a share of the per-document one, and how often
the question's own document comes first (within 3, within 5), from ``bookrag eval --out`` folders.

    python docs/eval/library-59/compare.py per-doc-fb library-before-fb library-after-fb > compare-fb.md
"""

import json
import sys
from collections import defaultdict
from pathlib import Path

from bookrag_neo4j.eval.benchmark import HALVES, half


def recalls(folder: Path) -> dict[tuple[str, str], list[float]]:
    found: dict[tuple[str, str], list[float]] = defaultdict(list)
    for line in (folder / "questions.jsonl").read_text().splitlines():
        row = json.loads(line)
        for part in ("all", half(row["doc"])):
            found[(row["method"], part)].append(row["recall@5p"])
    return found


def table(per_document: Path, *library: Path) -> str:
    base = recalls(per_document)
    methods = list(dict.fromkeys(m for m, _ in base))
    name = json.loads((per_document / "summary.json").read_text())["benchmark"]
    lines = [f"## {name}", "", "| method | run | all | design | check | design ratio | check ratio | own document "
             "first / within 3 / within 5 (design; check) |", "|---|---|---|---|---|---|---|---|"]
    for method in methods:
        mean = {p: sum(v) / len(v) for (m, p), v in base.items() if m == method}
        lines.append(f"| `{method}` | {per_document.name} | {mean['all']:.3f} | "
                     + " | ".join(f"{mean.get(h, 0):.3f}" for h in HALVES) + " | | | |")
        for folder in library:
            other = {p: sum(v) / len(v) for (m, p), v in recalls(folder).items() if m == method}
            ranks = json.loads((folder / "summary.json").read_text())["methods"][method].get("own_document", {})
            shares = "; ".join(" / ".join(f"{ranks[h][k]:.3f}" for k in ("top1", "top3", "top5")) for h in HALVES
                               if h in ranks)
            lines.append(f"| `{method}` | {folder.name} | {other['all']:.3f} | "
                         + " | ".join(f"{other.get(h, 0):.3f}" for h in HALVES) + " | "
                         + " | ".join(f"{other.get(h, 0) / mean[h]:.3f}" if mean.get(h) else "–" for h in HALVES)
                         + f" | {shares} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(table(*map(Path, sys.argv[1:])))
