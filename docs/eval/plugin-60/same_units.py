"""Whether two `bookrag eval --out` folders give every (question, method) the same evidence units in the same order,
and their page recall within 5 pages by method.

    python docs/eval/plugin-60/same_units.py CYPHER_RUN PLUGIN_RUN
"""

import json
import sys
from collections import defaultdict
from pathlib import Path


def units(folder: str) -> dict[tuple[str, str], tuple[list[str], float]]:
    rows = (json.loads(line) for line in (Path(folder) / "questions.jsonl").read_text().splitlines())
    return {(r["id"], r["method"]): ([u["key"] for u in r["retrieved"]], r["recall@5p"]) for r in rows}


def main(before: str, after: str) -> None:
    a, b = units(before), units(after)
    shared = sorted(set(a) & set(b))
    recall: dict[str, list[tuple[float, float]]] = defaultdict(list)
    differ = [k for k in shared if a[k][0] != b[k][0]]
    for k in shared:
        recall[k[1]].append((a[k][1], b[k][1]))
    print(f"{len(shared)} (question, method) pairs, {len(differ)} with other units or order: {differ[:5]}")
    for method, pairs in recall.items():
        print(f"  {method}: recall@5p {sum(p[0] for p in pairs) / len(pairs):.3f} -> {sum(p[1] for p in pairs) / len(pairs):.3f}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
