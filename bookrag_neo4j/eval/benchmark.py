"""Benchmark folders for ``bookrag eval``: ``questions.jsonl`` and ``pdfs/`` (the format of
``../shared/benchmarks/*/``).

    bench = load_benchmark(Path("../shared/benchmarks/financebench"))
    bench.questions[0].evidence_pages, bench.pdf("annual-report-2018.pdf")
    half("annual-report-2018.pdf")   # "design" or "check": design a change on one half, keep it if the other gains too

Each line of ``questions.jsonl`` holds ``id``, ``doc`` (a file in ``pdfs/``; a missing one makes its questions
misses in ``bookrag eval``), ``question``, ``answer`` and
``evidence_pages`` (1-based); MMLongBench adds ``answer_format``, ``evidence_sources`` and ``doc_type``,
FinanceBench ``question_type`` and ``question_reasoning``. Evidence sources are grouped as text, table,
chart, figure (MMLongBench's "Pure-text", "Table", "Chart", "Figure", "Generalized-text (Layout)" → layout).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import BookRAGError

SOURCE_GROUPS = {"pure-text": "text", "table": "table", "chart": "chart", "figure": "figure",
                 "generalized-text": "layout"}


HALVES = ("design", "check")


def half(doc: str) -> str:
    """The half of a dev set a document belongs to, ``design`` or ``check``, by a hash of its file name: the same
    on every machine, whatever else the set holds."""
    return HALVES[hashlib.sha256(doc.encode()).digest()[0] % 2]


class BenchmarkError(BookRAGError):
    """A benchmark folder that is not in the expected format."""


@dataclass(frozen=True)
class BenchQuestion:
    """One benchmark question with its gold answer and evidence."""

    id: str
    doc: str
    question: str
    answer: str
    evidence_pages: list[int]
    answer_format: str | None = None
    category: str = "unknown"  # FinanceBench question_type; else single-page or multi-page evidence
    sources: list[str] = field(default_factory=list)  # text, table, chart, figure, layout
    doc_type: str = "unknown"


@dataclass(frozen=True)
class Benchmark:
    """A benchmark folder: its name, questions and PDFs."""

    name: str
    folder: Path
    questions: list[BenchQuestion]

    def pdf(self, doc: str) -> Path:
        return self.folder / "pdfs" / doc


def _source(raw: str) -> str:
    key = raw.lower().split(" ")[0].split("(")[0]
    return SOURCE_GROUPS.get(key, key)


def load_benchmark(folder: Path, *, limit: int | None = None) -> Benchmark:
    """Read a benchmark folder (see the module docstring); ``limit``: its first N questions."""
    path = folder / "questions.jsonl"
    if not path.is_file() or not (folder / "pdfs").is_dir():
        raise BenchmarkError(f"{folder} is not a benchmark folder: it needs questions.jsonl and pdfs/")
    questions = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            pages = [int(p) for p in row.get("evidence_pages") or []]
            q = BenchQuestion(
                id=str(row["id"]), doc=row["doc"], question=row["question"], answer=str(row.get("answer", "")),
                evidence_pages=pages, answer_format=row.get("answer_format"),
                category=row.get("question_type") or ("multi-page" if len(pages) > 1 else "single-page"),
                sources=sorted({_source(s) for s in row.get("evidence_sources") or []}) or (
                    ["text"] if row.get("evidence_text") else []),
                doc_type=row.get("doc_type") or ("financial report" if row.get("question_type") else "unknown"),
            )
        except (KeyError, ValueError, TypeError) as exc:
            raise BenchmarkError(f"{path}:{number}: not a benchmark question ({exc})") from exc
        questions.append(q)
    return Benchmark(name=folder.resolve().name, folder=folder, questions=questions[:limit] if limit else questions)
