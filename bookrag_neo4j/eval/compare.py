"""``bookrag bench compare``: two ``bookrag eval --out`` folders question by question, e.g. before and after a
change that must not change results (a refactor), or two settings on the same index.

    diffs = compare_runs(read_rows(Path("eval-before")), read_rows(Path("eval-after")))
    print(compare_table(diffs))     # per method: mean recall before/after, largest per-question difference

Only the (question, method) pairs both runs scored are compared; a unit list is "the same" when the retrieved
units (keys, in order, with their pages) are equal.
"""

from __future__ import annotations

import gzip
import json
import statistics
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MEASURES = ("recall", "recall@5", "recall@10", "recall@5p", "units", "pages")
Rows = Mapping[tuple[str, str], Mapping[str, Any]]


@dataclass(frozen=True)
class MethodDiff:
    method: str
    questions: int
    before: dict[str, float]  # mean of each measure
    after: dict[str, float]
    largest: float  # the largest per-question difference in any measure
    same_units: int  # questions whose retrieved units are identical


def read_rows(folder: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """The rows of an eval folder's ``questions.jsonl`` (or ``questions.jsonl.gz``, as committed under
    ``docs/eval/``) by (question id, method)."""
    path = folder / "questions.jsonl"
    text = path.read_text(encoding="utf-8") if path.exists() else gzip.decompress(
        (folder / "questions.jsonl.gz").read_bytes()).decode("utf-8")
    lines = text.splitlines()
    return {(r["id"], r["method"]): r for r in map(json.loads, filter(None, lines))}


def compare_runs(before: Rows, after: Rows) -> list[MethodDiff]:
    """Per method, over the (question, method) pairs both runs hold."""
    common = sorted(set(before) & set(after))
    diffs = []
    for method in dict.fromkeys(m for _, m in common):
        keys = [k for k in common if k[1] == method]
        diffs.append(MethodDiff(
            method=method, questions=len(keys),
            before={m: statistics.mean(before[k][m] for k in keys) for m in MEASURES},
            after={m: statistics.mean(after[k][m] for k in keys) for m in MEASURES},
            largest=max(abs(before[k][m] - after[k][m]) for k in keys for m in MEASURES),
            same_units=sum(before[k]["retrieved"] == after[k]["retrieved"] for k in keys)))
    return diffs


def compare_table(diffs: list[MethodDiff]) -> str:
    """A Markdown table: mean recall and recall within 5 pages before and after, the largest difference."""
    lines = ["| method | questions | recall before | recall after | recall, 5 pages before | after | "
             "largest difference | same units |", "|---|---|---|---|---|---|---|---|"]
    lines += [f"| {d.method} | {d.questions} | {d.before['recall']:.4f} | {d.after['recall']:.4f} | "
              f"{d.before['recall@5p']:.4f} | {d.after['recall@5p']:.4f} | {d.largest:.4f} | "
              f"{d.same_units}/{d.questions} |" for d in diffs]
    return "\n".join(lines) + "\n"
