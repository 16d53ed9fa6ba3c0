"""``bookrag bench compare`` on hand-made eval rows: means, the largest difference, identical units."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from bookrag_neo4j.eval.compare import MEASURES, compare_runs, compare_table, read_rows


def row(qid: str, method: str, recall: float, units: list) -> dict:
    return {"id": qid, "method": method, **{m: recall for m in MEASURES}, "retrieved": units}


def test_compare_runs_question_by_question(tmp_path: Path) -> None:
    unit = [{"key": "a", "pages": [1]}]
    before = [row("q1", "bm25", 1.0, unit), row("q2", "bm25", 0.5, unit), row("q3", "bm25", 0.0, unit)]
    after = [row("q1", "bm25", 1.0, unit), row("q2", "bm25", 0.25, [{"key": "b", "pages": [2]}])]
    for name, rows in (("before", before), ("after", after)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (diff,) = compare_runs(read_rows(tmp_path / "before"), read_rows(tmp_path / "after"))
    assert diff.questions == 2  # q3 is in one run only
    assert diff.before["recall"] == 0.75 and diff.after["recall"] == 0.625
    assert diff.largest == 0.25 and diff.same_units == 1
    assert "| bm25 | 2 | 0.7500 | 0.6250 |" in compare_table([diff])
    gzipped = tmp_path / "gz"
    gzipped.mkdir()
    (gzipped / "questions.jsonl.gz").write_bytes(gzip.compress((tmp_path / "after" / "questions.jsonl").read_bytes()))
    assert read_rows(gzipped) == read_rows(tmp_path / "after")
