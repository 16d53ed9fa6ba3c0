"""``bookrag bench scale --clone`` against the real server: a 3-page PDF and clones of it, measured at 2 and 3
documents (cold ``bookrag retrieve`` processes, warm questions, client and server memory), resumed at 4; and
client memory does not grow with the library, asserted on the cold processes' max RSS: a fresh process doing
the same work varies by under a MiB, and a library-wide question reads only the documents it is routed to
(``BOOKRAG_ROUTE_DOCUMENTS``, 2 here, so that three sizes route with few clones). The cold processes embed the
question in NumPy, with no PyTorch (whose memory-mapped weights would make the resident set vary by tens of MiB
from one process to the next). (Clones themselves: ``test_scale_clone.py``; no server: ``tests/unit``.)"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bookrag_neo4j.config import Settings
from bookrag_neo4j.db.client import ConnectionInfo, Neo4jClient
from bookrag_neo4j.eval.scale_clone import list_clones
from bookrag_neo4j.eval.scale_curve import ColdProcess, bench_scale_clone
from bookrag_neo4j.eval.scale_run import CurveConfig, CurveRow, CurveRun
from bookrag_neo4j.index.pipeline import Indexer
from bookrag_neo4j.library.catalogue import delete_document
from bookrag_neo4j.llm import Models
from bookrag_neo4j.methods import Retriever

from ..helpers.cli import cli_env
from ..helpers.pdfs import tiny_pdf
from ..helpers.timeouts import LONG_TEST

pytestmark = pytest.mark.timeout(LONG_TEST)

SIZES = [2, 3]
ROUTE = 2  # BOOKRAG_ROUTE_DOCUMENTS: every size routes
SOURCE = "acme-curve.pdf"
MIB = 2**20


def bounded(first_kb: int, last_kb: int) -> bool:
    """Memory that does not grow with the library: the last size's within 2 % + 8 MiB of the first."""
    return last_kb * 1024 <= first_kb * 1024 * 1.02 + 8 * MIB


@pytest.fixture(scope="module")
async def curve(conn: ConnectionInfo, settings: Settings, offline_models: Models, schema,
                tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[tuple[CurveRun, CurveRun, Path]]:
    """A 3-page PDF indexed (every layer), the curve measured at SIZES, then resumed at 4."""
    out = tmp_path_factory.mktemp("curve")
    pdf = tiny_pdf(out.parent / SOURCE, "Acme Curveworks", "Ada Quill", "Chile", "copper")
    settings = settings.replace(route_documents=ROUTE)
    async with Neo4jClient(conn) as client:
        report = await Indexer(client, settings, offline_models, use_llm=False).index(pdf)
        retriever = Retriever(client, settings, offline_models, use_llm=False)
        config = CurveConfig(questions=["Who leads Acme Curveworks?"], method="bookrag", repeat=2,
                             llm=False, cold=True, sources=[report.doc_key])
        cold = ColdProcess(env=cli_env(settings, BOOKRAG_ROUTE_DOCUMENTS=str(ROUTE)))
        try:
            first = await bench_scale_clone(client, retriever, settings, out=out, sizes=SIZES, config=config,
                                            cold=cold)
            resumed = await bench_scale_clone(client, retriever, settings, out=out, sizes=[*SIZES, 4],
                                              config=config, cold=cold)
            yield first, resumed, out
        finally:
            for clone in await list_clones(client):
                await delete_document(client, clone.key)
            await delete_document(client, report.doc_key)


def test_the_curve_is_measured_at_each_size_and_resumes(curve: tuple[CurveRun, CurveRun, Path]) -> None:
    first, resumed, out = curve
    assert [(r.documents, r.clones, r.pages) for r in first.rows] == [(2, 1, 6), (3, 2, 9)]
    assert [r.clones_made for r in first.rows] == [1, 1] and all(r.clone_seconds > 0 for r in first.rows)
    for row in first.rows:
        for cold in (row.cold_document, row.cold_library):
            assert cold and len(cold.runs) == 1 and cold.runs[0].evidence > 0 and cold.median_s > 0
            assert 100 * 1024 < cold.max_rss_kb < 4096 * 1024  # a bookrag process, not this one
        for warm in (row.warm_document, row.warm_library):
            assert warm and warm.runs == 2 and 0 < warm.p50_ms <= warm.p95_ms
        assert row.client_rss_bytes and row.client_peak_rss_bytes >= row.client_rss_bytes
        assert row.heap_used_bytes and row.heap_max_bytes and row.heap_used_bytes <= row.heap_max_bytes
        assert row.pagecache_bytes and row.pagecache_bytes > 0
    assert first.rows[-1].nodes > first.rows[0].nodes and first.rows[-1].entities * 2 == first.rows[0].entities * 3
    # resumed: the sizes recorded are kept, clones 1-2 reused, one more made for 4
    assert resumed.rows[:2] == first.rows and [r.run for r in resumed.runs] == [1, 2]
    assert (resumed.rows[-1].documents, resumed.rows[-1].clones, resumed.rows[-1].clones_made) == (4, 3, 1)
    report = (out / "report.md").read_text()
    assert f"built by **cloning** the 1 indexed document(s) ({SOURCE})" in report and "| 4 | 3 |" in report
    assert (out / "scale.png").read_bytes().startswith(b"\x89PNG")


def cold_rss(rows: list[CurveRow], scope: str) -> list[int]:
    return [getattr(r, scope).max_rss_kb for r in rows]


def test_client_memory_of_a_one_document_question_does_not_grow_with_the_library(
        curve: tuple[CurveRun, CurveRun, Path]) -> None:
    rss = cold_rss(curve[1].rows, "cold_document")
    assert bounded(rss[0], rss[-1]), f"max RSS (KiB) at {[r.documents for r in curve[1].rows]} documents: {rss}"


def test_client_memory_of_a_library_question_does_not_grow_with_the_library(
        curve: tuple[CurveRun, CurveRun, Path]) -> None:
    """Beyond BOOKRAG_ROUTE_DOCUMENTS documents a library-wide question reads only the routed ones: from the first
    size it routes at, memory is flat (below it, each document more is read)."""
    rows = [r for r in curve[1].rows if r.documents >= ROUTE]
    rss = cold_rss(rows, "cold_library")
    assert len(rows) >= 3 and bounded(rss[0], rss[-1]), f"max RSS (KiB) at {[r.documents for r in rows]} documents: {rss}"
