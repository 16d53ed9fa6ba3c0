"""CPU of PyMuPDF's layout model on a PDF's first 30 table-candidate pages, with and without its table-grid model,
and whether the regions stay the same (README, "The layout model without its table-grid model").

    .venv/bin/python docs/eval/ingest-19/grid-profile.py ../shared/benchmarks/financebench/pdfs/3M_2018_10K.pdf
"""

import sys
import time
from pathlib import Path

import pymupdf

from bookrag_neo4j.parsing.finder_speed import boxes_only
from bookrag_neo4j.parsing.pymupdf_parser import table_candidate_pages
from bookrag_neo4j.parsing.tables import layout_regions

path = Path(sys.argv[1])
pages = table_candidate_pages(path)[:30]


def regions(grids: bool) -> list[list[tuple]]:
    doc = pymupdf.open(path)
    began = time.process_time()
    found = []
    for n in pages:
        page = doc[n - 1]
        if grids:
            page.get_layout()
        else:
            with boxes_only():
                page.get_layout()
        found.append(layout_regions(page))
    print(f"{'with' if grids else 'without'} table grids: {(time.process_time() - began) / len(pages):.3f} CPU-s a page")
    return found


with_grids, without = regions(True), regions(False)
print(f"same regions on {sum(a == b for a, b in zip(with_grids, without, strict=True))} of {len(pages)} pages")
