"""The finder's exact speed-ups (bookrag_neo4j/parsing/finder_speed.py) against PyMuPDF's own code on every
table-candidate page of some PDFs: the same characters (every field of every char dict), the same tables (boxes
and cells), and the CPU of ``find_tables(use_layout=True)`` each way, layout model included (README, "Indexing
speed"). One process, ONNX on one thread as in the parser's workers.

    .venv/bin/python docs/eval/ingest-19/chars-check.py ../shared/benchmarks/*/pdfs/*.pdf
"""

import sys
import time
from pathlib import Path

from bookrag_neo4j.parsing.onnx_threads import single_threaded_sessions

single_threaded_sessions()  # before PyMuPDF loads its layout model

import pymupdf  # noqa: E402
import pymupdf.table as pt  # noqa: E402

from bookrag_neo4j.parsing.finder_speed import boxes_only, fast_finder, make_chars  # noqa: E402
from bookrag_neo4j.parsing.pymupdf_parser import table_candidate_pages  # noqa: E402


def chars(page: pymupdf.Page, fast: bool) -> list[dict]:
    pt._CHARS_VAR.set([])
    old = pymupdf.TOOLS.set_small_glyph_heights()
    pymupdf.TOOLS.set_small_glyph_heights(True)  # as find_tables sets it
    try:
        (make_chars if fast else pt.make_chars)(page)
    finally:
        pymupdf.TOOLS.set_small_glyph_heights(old)
    return list(pt.CHARS)


def tables(page: pymupdf.Page, fast: bool) -> tuple[list, float]:
    began = time.process_time()
    with fast_finder() if fast else boxes_only():
        found = page.find_tables(use_layout=True).tables
    spent = time.process_time() - began
    return [(tuple(t.bbox), [[tuple(c) if c else None for c in row.cells] for row in t.rows]) for t in found], spent


pages = same_chars = same_tables = n_chars = 0
cpu = {False: 0.0, True: 0.0}
for name in sys.argv[1:]:
    path = Path(name)
    doc = pymupdf.open(path)
    for n in table_candidate_pages(path):
        page = doc[n - 1]
        original, fast = chars(page, False), chars(page, True)
        n_chars += len(original)
        same_chars += original == fast
        if original != fast:
            print(f"{path.name} p{n}: characters differ")
        results = {}
        for flag in (False, True):  # the layout model runs again each time: page.layout_information is reset
            page.layout_information = None
            results[flag], spent = tables(page, flag)
            cpu[flag] += spent
        same_tables += results[False] == results[True]
        if results[False] != results[True]:
            print(f"{path.name} p{n}: tables differ")
        pages += 1
    doc.close()
print(f"{len(sys.argv) - 1} PDFs, {pages} candidate pages, {n_chars} characters")
print(f"same characters on {same_chars} of {pages} pages, same tables on {same_tables} of {pages}")
print(f"find_tables(use_layout=True): PyMuPDF's code {cpu[False] / pages:.3f} CPU-s a page, "
      f"with the speed-ups {cpu[True] / pages:.3f} ({cpu[False] / cpu[True]:.2f}x)")
