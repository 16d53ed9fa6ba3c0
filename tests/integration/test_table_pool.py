"""The table finder on worker processes (:mod:`bookrag_neo4j.parsing.table_pool`): the same blocks as in-process,
a dead worker costs nothing, a script without a ``__main__`` guard is not run again in the workers, and the
region model runs without its table-grid model."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from bookrag_neo4j.parsing import table_pool
from bookrag_neo4j.parsing.pymupdf_parser import open_pdf, parse_pdf, table_candidate_pages
from bookrag_neo4j.parsing.tables import page_tables

from ..helpers.pdfs import ACL_PAPER, need
from ..helpers.timeouts import LONG_TEST

pytestmark = pytest.mark.timeout(LONG_TEST)


@pytest.fixture
def always_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(table_pool, "MIN_POOL_PAGES", 1)


def test_pool_gives_the_same_blocks_as_in_process(always_pool: None) -> None:
    path = need(ACL_PAPER)
    pooled = parse_pdf(path, workers=2)
    assert table_pool._pool is not None  # the pool really ran
    alone = parse_pdf(path, workers=1)
    assert any(b.kind == "table" for b in alone.blocks)
    assert [asdict(b) for b in pooled.blocks] == [asdict(b) for b in alone.blocks]


def test_pool_workers_run_onnx_on_one_thread() -> None:
    """``import pymupdf`` builds the region model's ONNX sessions: a worker's must be single-threaded (the pool
    spreads the pages), so its initializer runs before PyMuPDF is imported there."""
    from bookrag_neo4j.parsing.onnx_threads import session_threads

    threads = table_pool.get_pool(2).submit(session_threads).result(timeout=120)
    assert threads and set(threads) == {1}, threads


def test_a_dead_worker_falls_back_to_in_process(always_pool: None) -> None:
    path = need(ACL_PAPER)
    pages = table_candidate_pages(path)
    doc, content_hash = open_pdf(path)
    with doc:
        find = table_pool.table_finder(path, content_hash, doc, pages, "regions", 2)
        for process in list(table_pool._pool._processes.values()):  # workers still loading their models
            process.kill()
        found = {n: find(n).tables for n in pages}
        expected = {n: page_tables(doc[n - 1], n, "regions") for n in pages}
    assert table_pool._pool is None  # dropped: the next document starts a new pool
    assert {n: [asdict(b) for b in t] for n, t in found.items()} == {n: [asdict(b) for b in t] for n, t in expected.items()}
    assert any(found.values())


def test_a_script_without_a_main_guard_runs_once(tmp_path: Path) -> None:
    script = tmp_path / "index_me.py"
    script.write_text(
        "from pathlib import Path\n"
        "from bookrag_neo4j.parsing import table_pool\n"
        "from bookrag_neo4j.parsing.pymupdf_parser import parse_pdf\n"
        "table_pool.MIN_POOL_PAGES = 1\n"
        f"parsed = parse_pdf(Path({str(need(ACL_PAPER))!r}), workers=2)\n"
        "print('parsed', sum(b.kind == 'table' for b in parsed.blocks), table_pool._pool is not None)\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("parsed") == 1 and done.stdout.strip().endswith("True")
    assert "bootstrapping" not in done.stderr and "worker died" not in done.stderr


def test_the_finder_runs_the_layout_model_without_its_table_grids(monkeypatch: pytest.MonkeyPatch) -> None:
    """The finder reads only the region model's table boxes: its table-grid model is off while we call it (same
    tables, same regions, less CPU) and on again after, for a caller's own ``pymupdf4llm``."""
    from bookrag_neo4j.parsing.finder_speed import layout_model
    from bookrag_neo4j.parsing.tables import find_on_page, regions_left

    model = layout_model()
    assert model is not None, "PyMuPDF moved its region model: boxes_only no longer turns the table grids off"
    grids = model.table_grid_extractor
    calls: list[int] = []
    predict = grids.predict
    monkeypatch.setattr(grids, "predict", lambda *a, **k: calls.append(1) or predict(*a, **k))
    path = need(ACL_PAPER)
    doc, _ = open_pdf(path)
    with doc:
        pages = table_candidate_pages(path)
        with_grids = {}
        for n in pages:
            page = doc[n - 1]
            with_grids[n] = ([asdict(b) for b in page_tables(page, n, "regions")], regions_left(page))
        grid_calls = len(calls)
        found = {n: find_on_page(doc[n - 1], n, "regions") for n in pages}
    assert grid_calls > 0 and len(calls) == grid_calls  # the grids ran without boxes_only, never inside it
    assert {n: ([asdict(b) for b in f.tables], f.regions) for n, f in found.items()} == with_grids
    assert any(t for t, _ in with_grids.values())
    assert model.table_grid_extractor is grids


def test_bench_tables_measures_the_prefilter_against_the_finder_everywhere(tmp_path: Path) -> None:
    from bookrag_neo4j.eval.bench_tables import bench_tables

    damaged = tmp_path / "damaged.pdf"
    damaged.write_bytes(need(ACL_PAPER).read_bytes()[:2000])
    report = bench_tables([ACL_PAPER, damaged])
    (doc,) = report.per_document
    assert report.documents == 1 and set(report.failed) == {"damaged.pdf"}  # one bad PDF is a line, not the end
    assert doc.pages == 24 and 8 in set(table_candidate_pages(ACL_PAPER)) and doc.positive > 0  # "Table 3" on page 8
    assert 0 < doc.true_positive <= min(doc.candidates, doc.positive) and report.precision == doc.precision
    assert doc.tables_missed == 0 or doc.missed_pages  # a missed table is on a page the prefilter skipped
