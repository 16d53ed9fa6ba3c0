"""What ``bookrag eval`` reports of a run: per method, the means of the rows' measures, page recall broken down by
category, evidence source and doc type, the two halves, the own document's rank in a library-wide run; what was
counted as a miss, and whether each part helps (:mod:`.parts`).

    summary = summarise(rows, benchmark="mmlongbench", mode="retrieval", scope="document", llm=False)
    summary.methods["bookrag"].recall_at_5p, summary.methods["bookrag"].halves["check"]
    summary.record()   # the JSON ``summary.json`` holds: measures under their report names ("recall@5p")
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from ..methods import METHODS
from .benchmark import HALVES, half
from .parts import PartEffect
from .scored import EvalRow

DOC_RANKS = (1, 3, 5)  # how often the question's own document comes first, within 3, within 5
MEASURES = ("recall", "recall@5", "recall@10", "units", "pages", "recall@5p", "recall@10p", "seconds", "llm_calls",
            "tokens", "score", "em", "f1", "inclusion", "judge")


class MethodSummary(BaseModel):
    """One method's means (None: not measured in this run, e.g. QA scores in a retrieval run) and breakdowns."""

    model_config = ConfigDict(populate_by_name=True, frozen=True)

    n: int  # rows
    recall: float | None = None
    recall_at_5: float | None = Field(None, alias="recall@5")
    recall_at_10: float | None = Field(None, alias="recall@10")
    units: float | None = None
    pages: float | None = None
    recall_at_5p: float | None = Field(None, alias="recall@5p")
    recall_at_10p: float | None = Field(None, alias="recall@10p")
    seconds: float | None = None
    llm_calls: float | None = None
    tokens: float | None = None
    score: float | None = None
    em: float | None = None
    f1: float | None = None
    inclusion: float | None = None
    judge: float | None = None
    recall_by: dict[str, dict[str, float]] = Field(default_factory=dict)  # category|sources|doc_type -> value -> recall
    halves: dict[str, float] = Field(default_factory=dict)  # design|check -> page recall within 5 pages
    own_document: dict[str, dict[str, float]] | None = None  # library-wide: all|design|check -> top1|top3|top5 share

    def measure(self, name: str) -> float | None:
        """A mean by its report name (``recall@5p``), None when not measured."""
        return getattr(self, _FIELDS[name])


_FIELDS = {(info.alias or name): name for name, info in MethodSummary.model_fields.items()}


class Misses(BaseModel):
    """Rows counted as misses for one reason, and their documents."""

    documents: list[str] = Field(default_factory=list)
    rows: int = 0


class EvalSummary(BaseModel):
    """A run's summary (``summary.json``); ``benchmark``, ``mode``, ``scope`` and ``llm`` name the run."""

    questions: int
    partial: bool  # some rows are misses for an error (a document that failed or is not indexed, a method)
    errors: dict[str, Misses] = Field(default_factory=dict)
    methods: dict[str, MethodSummary] = Field(default_factory=dict)
    parts: list[PartEffect] = Field(default_factory=list)
    benchmark: str | None = None
    mode: str | None = None
    scope: str | None = None
    llm: bool | None = None

    def record(self) -> dict[str, JsonValue]:
        """The JSON of ``summary.json`` and ``--json``: measures under their report names, unmeasured ones left out."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


def by_part(method: MethodSummary) -> dict[str, float]:
    """A method's page recall within 5 pages on the whole set and on each half it has questions in."""
    return ({"all": method.recall_at_5p} if method.recall_at_5p is not None else {}) | method.halves


def part_effects(methods: Mapping[str, MethodSummary], ablates: Mapping[str, tuple[str, str]]) -> list[PartEffect]:
    """Each evaluated ablation (``ablates``: ablation -> (full method, what it leaves out)) whose full method was
    evaluated too, in the order the full methods were run, then from the part that helps most (the ablation that
    loses most)."""
    order = list(methods)
    effects = []
    for ablation, (full, leaves_out) in ablates.items():
        if ablation not in methods or full not in methods or methods[full].recall_at_5p is None:
            continue
        mine, theirs = by_part(methods[ablation]), by_part(methods[full])
        effects.append(PartEffect(method=full, ablation=ablation, leaves_out=leaves_out, full=theirs,
                                  delta={k: round(mine[k] - v, 4) for k, v in theirs.items() if k in mine}))
    return sorted(effects, key=lambda e: (order.index(e.method), e.delta["all"]))


def own_document_ranks(rows: Sequence[EvalRow]) -> dict[str, dict[str, float]]:
    """In a library-wide run, the share of questions whose own document comes first among the evidence's
    documents, within 3 and within 5: over all rows and by half."""
    def shares(group: list[EvalRow]) -> dict[str, float]:
        ranks = [r.doc_rank for r in group]
        return {f"top{k}": round(sum(1 for x in ranks if x is not None and x <= k) / len(ranks), 4)
                for k in DOC_RANKS} if ranks else {}
    by_half = {h: [r for r in rows if half(r.doc) == h] for h in HALVES}
    return {"all": shares(list(rows))} | {h: shares(group) for h, group in by_half.items() if group}


def summarise(rows: Sequence[EvalRow], *, benchmark: str | None = None, mode: str | None = None,
              scope: str | None = None, llm: bool | None = None) -> EvalSummary:
    """Means per method, and page recall per method broken down by category, evidence source and doc type;
    ``errors``: each reason rows were misses for, with its documents and number of rows."""
    by_method: dict[str, list[EvalRow]] = defaultdict(list)
    for row in rows:
        by_method[row.method].append(row)
    errors: dict[str, Misses] = {}
    for row in rows:
        if row.error:
            entry = errors.setdefault(row.error, Misses())
            entry.rows += 1
            if row.doc not in entry.documents:
                entry.documents.append(row.doc)
    methods = {method: _method_summary(group) for method, group in by_method.items()}
    ablates = {m.name: (m.ablates, m.description) for m in METHODS.values() if m.ablates}
    return EvalSummary(questions=len({(r.benchmark, r.id) for r in rows}), partial=bool(errors), errors=errors,
                       methods=methods, parts=part_effects(methods, ablates), benchmark=benchmark, mode=mode,
                       scope=scope, llm=llm)


def _method_summary(group: list[EvalRow]) -> MethodSummary:
    records = [r.record() for r in group]
    values = {m: [r[m] for r in records if r.get(m) is not None] for m in MEASURES}  # a failed judge is None
    means = {m: round(statistics.mean(v), 4) for m, v in values.items() if v}
    breakdown: dict[str, dict[str, float]] = {}
    for field in ("category", "sources", "doc_type"):
        buckets: dict[str, list[float]] = defaultdict(list)
        for row in group:
            value = getattr(row, field)
            for bucket in (value if isinstance(value, list) else [value]):
                buckets[bucket].append(row.recall)
        breakdown[field] = {k: round(statistics.mean(v), 4) for k, v in sorted(buckets.items())}
    halves: dict[str, list[float]] = defaultdict(list)
    for row in group:
        halves[half(row.doc)].append(row.recall_at_5p)
    return MethodSummary.model_validate({
        "n": len(group), **means, "recall_by": breakdown,
        "halves": {h: round(statistics.mean(halves[h]), 4) for h in HALVES if halves[h]},
        "own_document": own_document_ranks(group) if any(r.scope == "library" for r in group) else None})
