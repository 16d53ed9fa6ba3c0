"""``bookrag bench tables``: the parser's table prefilter measured against running the table finder everywhere.

    report = bench_tables([Path("10k.pdf")], workers=2)
    report.precision, report.recall      # over pages: a page is positive when the finder keeps a table there

The parser runs PyMuPDF's table finder (~0.35 CPU-s a page) only on the pages its prefilter lets through
(:meth:`bookrag_neo4j.parsing.pymupdf_parser.table_candidate_pages`). Here the finder runs on every page, with the
same filtering of what counts as a table (:func:`bookrag_neo4j.parsing.tables.page_tables`), and the pages where
it keeps at least one table are the truth. Precision: the share of candidate pages that hold a table; recall: the
share of pages holding a table that are candidates; ``tables_missed``: the tables on pages the prefilter skips,
with the first cells of a few of them to judge what is lost.
"""

from __future__ import annotations

import time
from pathlib import Path

from pydantic import BaseModel

from ..errors import DocumentError
from ..parsing.pymupdf_parser import open_pdf, table_candidate_pages
from ..parsing.table_pool import table_finder
from ..parsing.tables import TableMode


class TablePages(BaseModel):
    """One document: its candidate pages against the pages where the finder, run everywhere, keeps a table."""

    document: str
    pages: int
    candidates: int
    positive: int
    true_positive: int
    precision: float | None
    recall: float | None
    tables: int
    tables_missed: int
    missed_pages: list[int]
    missed_samples: list[str]  # the first cells of a few missed tables
    finder_everywhere_s: float


class TableBench(BaseModel):
    """The documents' sums, precision and recall over pages, and each document (``failed``: name -> why)."""

    documents: int
    mode: str
    workers: int
    pages: int
    candidates: int
    positive: int
    true_positive: int
    tables: int
    tables_missed: int
    precision: float | None
    recall: float | None
    table_recall: float | None
    finder_pages_saved: float | None
    per_document: list[TablePages]
    failed: dict[str, str]


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def bench_tables(paths: list[Path], *, mode: TableMode = "regions", workers: int = 1) -> TableBench:
    rows: list[TablePages] = []
    failed: dict[str, str] = {}
    for path in paths:
        try:
            candidates = set(table_candidate_pages(path))
            doc, content_hash = open_pdf(path)
        except DocumentError as exc:
            failed[path.name] = str(exc)
            continue
        with doc:
            began = time.perf_counter()
            every = list(range(1, doc.page_count + 1))
            find = table_finder(path, content_hash, doc, every, mode, workers)
            found = {n: find(n).tables for n in every}
            seconds = time.perf_counter() - began
        positive = {n for n, tables in found.items() if tables}
        missed = sorted(positive - candidates)
        rows.append(TablePages(
            document=path.name, pages=len(every), candidates=len(candidates), positive=len(positive),
            true_positive=len(positive & candidates), precision=_ratio(len(positive & candidates), len(candidates)),
            recall=_ratio(len(positive & candidates), len(positive)),
            tables=sum(len(t) for t in found.values()), tables_missed=sum(len(found[n]) for n in missed),
            missed_pages=missed, missed_samples=[" | ".join(t.cells[0])[:80] for n in missed[:3] for t in found[n][:1]],
            finder_everywhere_s=round(seconds, 1)))
    pages, candidates_n = sum(r.pages for r in rows), sum(r.candidates for r in rows)
    positive_n, true_positive = sum(r.positive for r in rows), sum(r.true_positive for r in rows)
    tables, tables_missed = sum(r.tables for r in rows), sum(r.tables_missed for r in rows)
    return TableBench(
        documents=len(rows), mode=mode, workers=workers, pages=pages, candidates=candidates_n, positive=positive_n,
        true_positive=true_positive, tables=tables, tables_missed=tables_missed,
        precision=_ratio(true_positive, candidates_n), recall=_ratio(true_positive, positive_n),
        table_recall=_ratio(tables - tables_missed, tables), finder_pages_saved=_ratio(pages - candidates_n, pages),
        per_document=rows, failed=failed)
