"""Which dev-benchmark PDFs without an outline (their sections come from a detector) ``auto``'s second opinion
hands to the layout model: ``python dev_switches.py ../shared/benchmarks/*/pdfs/*.pdf`` (one JSON line a PDF)."""

from __future__ import annotations

import json
import logging
import sys
import time
from pathlib import Path

from bookrag_neo4j.parsing.pymupdf_parser import parse_pdf
from bookrag_neo4j.tree import detect
from bookrag_neo4j.tree.headings import MIN_OUTLINE


class Switches(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if "disagree" in record.getMessage():
            self.seen.append(record.getMessage())


switches = Switches()
logging.getLogger(detect.__name__).addHandler(switches)
logging.getLogger(detect.__name__).setLevel(logging.INFO)
for name in sys.argv[1:]:
    began = time.perf_counter()
    parsed = parse_pdf(Path(name), tables="layout", workers=2)
    if len(parsed.outline) >= MIN_OUTLINE:
        continue
    before = len(switches.seen)
    headings, read, _ = detect.from_auto(parsed, workers=2)
    print(json.dumps({"document": Path(name).name, "pages": parsed.page_count, "headings": len(headings),
                      "layout_pages": read, "switched": len(switches.seen) > before,
                      "seconds": round(time.perf_counter() - began, 1)}), flush=True)
