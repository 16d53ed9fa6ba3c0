"""``bookrag bench scale --ingest`` against the real server: four 3-page PDFs grow a library measured at sizes
1 and 2, then a second run resumes: the recorded documents are not indexed again, a document left half-done
is finished but not timed, the next one is, and the library is measured at 4 when 6 were asked for.
(Row assembly, the projection, the plot: ``tests/unit/test_bench_scale.py``.)"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bookrag_neo4j.config import Settings
from bookrag_neo4j.db.client import Neo4jClient
from bookrag_neo4j.db.gds import list_projections
from bookrag_neo4j.errors import ScaleRunError
from bookrag_neo4j.eval.bench_scale import bench_scale_ingest, plan_documents
from bookrag_neo4j.eval.scale_run import ScaleConfig, read_run
from bookrag_neo4j.index.pipeline import Indexer
from bookrag_neo4j.library.catalogue import delete_document
from bookrag_neo4j.library.documents import get_document
from bookrag_neo4j.llm import Models
from bookrag_neo4j.methods import Retriever
from bookrag_neo4j.server.manager import resolve_mode

from ..helpers.pdfs import tiny_pdf

TOPICS = (("Harbour Authority of Lisbon", "Maria Costa", "Portugal", "cargo"),
          ("Northwind Mining Group", "Peter Olsen", "Norway", "copper"),
          ("Sunfield Solar Company", "Aiko Tanaka", "Japan", "panels"),
          ("Riverside Rail Works", "Omar Haddad", "Egypt", "wagons"))
CONFIG = ScaleConfig(stages="graph", questions=["Who leads the company?"], method="bookrag", repeat=1, llm=False,
                     checkpoint=False)  # no restart of the shared test server


@pytest.fixture
async def pdfs(tmp_path: Path, db: Neo4jClient) -> AsyncIterator[list[Path]]:
    paths = [tiny_pdf(tmp_path / f"scale-{i}.pdf", *topic) for i, topic in enumerate(TOPICS)]
    plan = plan_documents(paths)
    for doc in plan:  # left over by an interrupted session: start from nothing
        await delete_document(db, doc.key)
    yield paths
    for doc in plan:
        await delete_document(db, doc.key)


async def test_the_library_grows_is_measured_and_resumes(db: Neo4jClient, settings: Settings,
                                                         offline_models: Models, schema, pdfs: list[Path],
                                                         tmp_path: Path) -> None:
    indexer = Indexer(db, settings, offline_models, use_llm=False)
    retriever = Retriever(db, settings, offline_models, use_llm=False)
    plan = plan_documents(pdfs)
    out = tmp_path / "run"
    run = await bench_scale_ingest(indexer, retriever, settings, plan, out=out, sizes=[2, 1], config=CONFIG)

    assert [r.documents for r in run.rows] == [1, 2] and [r.pages for r in run.rows] == [3, 6]
    assert all(r.indexed_documents == 1 and r.ingest_pages_per_s and r.ingest_pages_per_s > 0 for r in run.rows)
    first, second = run.rows
    assert 0 < first.entities < second.entities and second.nodes > first.nodes and second.relationships > 0
    if resolve_mode(settings) == "external":
        assert first.store_bytes is None and "n/a" in first.store_source
    else:
        # the store on disk, measured after a checkpoint; Lucene may merge the indexes' segments between two
        # sizes (a Document's card is written after its node, so its full-text entry is replaced): not a byte-exact
        # growth, but no loss of more than 1 %
        assert first.store_bytes and second.store_bytes and second.store_bytes >= 0.99 * first.store_bytes > 0
    assert all(r.heap_used_bytes and r.heap_max_bytes and r.heap_used_bytes <= r.heap_max_bytes for r in run.rows)
    assert all(r.pagecache_bytes and r.pagecache_bytes > 0 for r in run.rows)
    assert first.projection and second.projection and second.projection.nodes > first.projection.nodes > 0
    assert first.projection.size_bytes > 0 and first.projection.estimate_bytes and first.projection.estimate_bytes > 0
    assert not await list_projections(db)  # every projection measured was dropped
    assert all(r.latency and r.latency.runs == 1 and r.latency.with_models_p50_ms >= r.latency.p50_ms > 0
               for r in run.rows)
    assert read_run(out).rows == run.rows and "| 2 | 6 |" in (out / "report.md").read_text()

    # a crash left the third document with its tree but no graph; the resumed run must not index 1-2 again
    stamps = [(d.indexed_at, d.graph_built_at) for d in [await get_document(db, doc.key) for doc in plan[:2]] if d]
    assert len(stamps) == 2 and all(indexed and built for indexed, built in stamps)
    await indexer.index(Path(plan[2].path), knowledge_graph=False, layout=False)
    resumed = await bench_scale_ingest(indexer, retriever, settings, plan, out=out, sizes=[1, 2, 6], config=CONFIG)
    assert resumed.rows[:2] == run.rows and [r.documents for r in resumed.rows] == [1, 2, 4]  # 6: all there is
    last = resumed.rows[-1]
    assert (last.run, last.indexed_documents, last.partial_documents, last.reused_documents) == (2, 1, 1, 0)
    assert [o.outcome for o in last.outcomes] == ["partial", "indexed"] and last.indexed_pages == 3
    assert last.ingest_pages_per_s == round(3 / last.outcomes[1].seconds, 2)
    assert [(d.indexed_at, d.graph_built_at) for d in [await get_document(db, doc.key) for doc in plan[:2]]
            if d] == stamps
    assert [r.run for r in resumed.runs] == [1, 2] and resumed.runs[1].last_size == 4

    with pytest.raises(ScaleRunError, match="other options"):
        await bench_scale_ingest(indexer, retriever, settings, plan, out=out, sizes=[1],
                                 config=CONFIG.model_copy(update={"stages": "tree"}))
