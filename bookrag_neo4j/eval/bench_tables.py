"""``bookrag bench tables``: the parser's table prefilter measured against running the table finder everywhere.

    report = bench_tables([Path("10k.pdf")], workers=2)
    report["precision"], report["recall"]      # over pages: a page is positive when the finder keeps a table there

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
from typing import Any

from ..errors import DocumentError
from ..parsing.pymupdf_parser import open_pdf, table_candidate_pages
from ..parsing.table_pool import table_finder
from ..parsing.tables import TableMode


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def bench_tables(paths: list[Path], *, mode: TableMode = "regions", workers: int = 1) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    for path in paths:
        try:
            candidates = set(table_candidate_pages(path))
            doc, content_hash = open_pdf(path)
        except DocumentError as exc:
            rows.append({"document": path.name, "error": str(exc)})
            continue
        with doc:
            began = time.perf_counter()
            every = list(range(1, doc.page_count + 1))
            find = table_finder(path, content_hash, doc, every, mode, workers)
            found = {n: find(n).tables for n in every}
            seconds = time.perf_counter() - began
        positive = {n for n, tables in found.items() if tables}
        missed = sorted(positive - candidates)
        rows.append({
            "document": path.name, "pages": len(every), "candidates": len(candidates), "positive": len(positive),
            "true_positive": len(positive & candidates), "precision": _ratio(len(positive & candidates), len(candidates)),
            "recall": _ratio(len(positive & candidates), len(positive)),
            "tables": sum(len(t) for t in found.values()), "tables_missed": sum(len(found[n]) for n in missed),
            "missed_pages": missed,
            "missed_samples": [" | ".join(t.cells[0])[:80] for n in missed[:3] for t in found[n][:1]],
            "finder_everywhere_s": round(seconds, 1),
        })
    ok = [r for r in rows if "error" not in r]
    total = {key: sum(r[key] for r in ok) for key in
             ("pages", "candidates", "positive", "true_positive", "tables", "tables_missed")}
    return {
        "documents": len(ok), "mode": mode, "workers": workers, **total,
        "precision": _ratio(total["true_positive"], total["candidates"]),
        "recall": _ratio(total["true_positive"], total["positive"]),
        "table_recall": _ratio(total["tables"] - total["tables_missed"], total["tables"]),
        "finder_pages_saved": _ratio(total["pages"] - total["candidates"], total["pages"]),
        "per_document": rows,
    }
