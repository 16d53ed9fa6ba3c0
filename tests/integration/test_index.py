"""Indexing real PDFs into Neo4j: tree shape, pages, reading order, idempotence, replacement, deletion,
resumption after a crash, and bad input writing nothing."""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from bookrag_neo4j.db.client import Neo4jClient
from bookrag_neo4j.errors import DocumentError, DocumentNotFoundError
from bookrag_neo4j.index import store
from bookrag_neo4j.index.pipeline import Indexer
from bookrag_neo4j.keys import file_key
from bookrag_neo4j.library.catalogue import delete_document, table_of_contents
from bookrag_neo4j.library.documents import EmbeddingsStatus, TreeStatus, find_document
from bookrag_neo4j.library.stats import document_stats
from bookrag_neo4j.llm import Models

from ..helpers.cli import run_cli
from ..helpers.counts import database_counts
from ..helpers.pdfs import BENCHMARKS, FOOTLOCKER, MINERU_SAMPLE, R_INTRO, RAG_SURVEY, need
from ..helpers.timeouts import LONG_TEST

pytestmark = pytest.mark.timeout(LONG_TEST)  # real PDFs indexed, the RAG survey with its knowledge graph


@pytest.fixture(scope="module")
def models(settings) -> Models:
    return Models.from_settings(settings.replace(llm_provider="none"))


@pytest.fixture
async def indexer(db: Neo4jClient, settings, models, schema, tmp_path) -> Indexer:
    local = settings.replace(data_dir=tmp_path)
    return Indexer(db, local, models, use_llm=False)


@pytest.fixture
async def delete_after(db: Neo4jClient) -> AsyncIterator[Callable[..., None]]:
    """``delete_after(doc_key, image_dir=None)``: that document is deleted (with its extracted images) after the
    test, passed or failed. A test that checks deletion still deletes in its body; this one then finds nothing."""
    documents: list[tuple[str, Path | None]] = []
    yield lambda doc_key, image_dir=None: documents.append((doc_key, image_dir))
    for doc_key, image_dir in reversed(documents):
        await delete_document(db, doc_key, image_dir)


async def fresh(db: Neo4jClient, path: Path) -> Path:
    """Remove what an earlier run left of this file's index, so each test starts from nothing."""
    await delete_document(db, file_key(path))
    for row in await db.run("MATCH (d:Document {name: $n}) RETURN d.key AS k", {"n": path.name}):
        await delete_document(db, row["k"])
    return path


async def count(db: Neo4jClient, doc_key: str) -> dict[str, int]:
    (row,) = await db.run(
        "MATCH (n) WHERE n.doc_key = $k OR n.key = $k "
        "OPTIONAL MATCH (n)-[r]-() RETURN count(DISTINCT n) AS nodes, count(DISTINCT r) AS rels", {"k": doc_key})
    return row


async def test_manual_tree_in_neo4j(db: Neo4jClient, indexer: Indexer, delete_after) -> None:
    delete_after(file_key(need(R_INTRO)))
    report = await indexer.index(await fresh(db, R_INTRO), embed=False, knowledge_graph=False, layout=False)
    assert report.status == "indexed" and report.heading_source == "outline"
    assert report.pages == 113 and sum(report.sections_by_level.values()) == 145
    key = report.doc_key
    # every section hangs under the document or a section of a lower level; orders follow reading order
    bad = await db.run(
        "MATCH (p:Section {doc_key: $k})-[:HAS_CHILD]->(c:Section) WHERE c.level <= p.level RETURN count(*) AS n",
        {"k": key})
    assert bad[0]["n"] == 0
    top = await db.run("MATCH (:Document {key: $k})-[r:HAS_CHILD]->(s:Section) RETURN s.title AS t, r.order AS o "
                          "ORDER BY o LIMIT 2", {"k": key})
    assert [r["t"] for r in top] == ["Preface", "1 Introduction and preliminaries"]
    # reading order: one NEXT chain through all content blocks
    (chain,) = await db.run(
        "MATCH (n:TreeNode {doc_key: $k}) WHERE n.kind <> 'section' WITH count(n) AS blocks "
        "MATCH (:TreeNode {doc_key: $k})-[r:NEXT]->() RETURN blocks, count(r) AS nexts", {"k": key})
    assert chain["nexts"] == chain["blocks"] - 1
    # pages: 113 Page nodes; every block is on the pages of its span
    pages = await db.run("MATCH (:Document {key: $k})-[:HAS_PAGE]->(p:Page) RETURN count(p) AS n", {"k": key})
    assert pages[0]["n"] == 113
    (span,) = await db.run(
        "MATCH (s:Section {doc_key: $k, title: 'The R environment'}) RETURN s.page_start AS a, s.page_end AS b, "
        "s.section_path AS path", {"k": key})
    assert (span["a"], span["b"]) == (8, 8)
    assert span["path"] == "1 Introduction and preliminaries > The R environment"
    stats = await document_stats(db, key)
    assert stats.pages == 113 and stats.sections_by_level == {"L1": 21, "L2": 86, "L3": 38}
    toc = await table_of_contents(db, key)
    assert [(t.title, t.level, t.page) for t in toc[:3]] == [
        ("Preface", 1, 7), ("1 Introduction and preliminaries", 1, 8), ("The R environment", 2, 8)]

    before = await count(db, key)
    again = await indexer.index(R_INTRO, embed=False, knowledge_graph=False, layout=False)
    assert again.status == "unchanged" and await count(db, key) == before
    # a full rewrite changes nothing either
    forced = await indexer.index(R_INTRO, embed=False, knowledge_graph=False, layout=False, force=True)
    assert forced.status == "indexed" and await count(db, key) == before
    await delete_document(db, report.doc_key)  # delete leaves nothing
    assert await count(db, report.doc_key) == {"nodes": 0, "rels": 0}


async def check_graph(db: Neo4jClient, report) -> None:
    """The knowledge graph of the RAG survey, built by the LLM-free extractor with gradient ER."""
    g = report.graph
    assert g.status == "built" and g.entities > 1000 and g.relations > 2000 and g.gt_links >= g.entities
    assert g.er["merges"] > 0 and g.er["lookups"] > 0 and not g.warnings
    kinds = {r["kind"]: r["n"] for r in await db.run(
        "MATCH (e:Entity {doc_key: $k})-[:MENTIONED_IN]->(n:TreeNode) RETURN n.kind AS kind, count(*) AS n",
        {"k": report.doc_key})}
    assert {"section", "text", "table", "image"} <= set(kinds)
    (table,) = await db.run(
        "MATCH (h:Entity)-[:CONTAINED_IN]->(t:Entity {doc_key: $k, type: 'TABLE'})-[:MENTIONED_IN]->(n:Table) "
        "RETURN count(DISTINCT t) AS tables, count(h) AS headers", {"k": report.doc_key})
    assert table["tables"] >= 1 and table["headers"] >= 5
    (naive,) = await db.run(  # the paper's own name for its subject appears, merged with its acronym
        "MATCH (e:Entity {doc_key: $k}) WHERE toLower(e.name) = 'rag' OR 'RAG' IN e.aliases "
        "RETURN count(e) AS n, sum(e.mentions) AS mentions", {"k": report.doc_key})
    assert naive["n"] >= 1 and naive["mentions"] > 50
    stats = (await document_stats(db, report.doc_key, with_graph=True)).graph
    assert stats is not None and stats.entities == report.graph.entities and stats.components >= 1
    assert 0 < stats.density < 1 and stats.largest_component_diameter >= 2


async def test_changed_file_replaces_and_delete_leaves_nothing(db: Neo4jClient, indexer: Indexer, tmp_path,
                                                               delete_after) -> None:
    import pymupdf

    path = tmp_path / "survey.pdf"
    shutil.copy(need(RAG_SURVEY), path)
    delete_after(file_key(path), indexer.image_dir)
    first = await indexer.index(await fresh(db, path), embed=True)  # tree, embeddings and graph, no LLM
    assert first.embedded > 300
    await check_graph(db, first)
    again = await indexer.index(path, embed=True)
    assert again.status == "unchanged" and again.graph.status == "unchanged"
    assert again.graph.entities == first.graph.entities
    (emb,) = await db.run("MATCH (n:Text {doc_key: $k}) WHERE n.embedding IS NOT NULL "
                             "RETURN count(n) AS n, size(head(collect(n.embedding))) AS dims", {"k": first.doc_key})
    assert emb["n"] > 100 and emb["dims"] == 384
    embedded = await find_document(db, first.doc_key)  # the embedding stage's state on the Document
    assert embedded.embeddings is EmbeddingsStatus.COMPLETE and embedded.embedder == indexer.models.embedder.name
    images = await db.run("MATCH (i:Image {doc_key: $k}) RETURN i.image_path AS p, i.caption AS c", {"k": first.doc_key})
    assert images and all(Path(r["p"]).is_file() for r in images)
    assert any(r["c"].lower().startswith("fig") for r in images)
    tables = await db.run("MATCH (t:Table {doc_key: $k}) RETURN t.n_rows AS r, t.caption AS c", {"k": first.doc_key})
    assert tables and any(t["c"] for t in tables)

    doc = pymupdf.open(path)  # the same file name with new content replaces the old index
    doc.delete_page(-1)
    doc.save(tmp_path / "v2.pdf")
    shutil.move(tmp_path / "v2.pdf", path)
    delete_after(file_key(path), indexer.image_dir)
    # the layout layer's delete is test_layout.py's; a graph's, the first document's above and test_crashes.py's
    second = await indexer.index(path, embed=False, knowledge_graph=False, layout=False)
    assert second.status == "replaced" and second.doc_key != first.doc_key and second.pages == 20
    assert await count(db, first.doc_key) == {"nodes": 0, "rels": 0}
    assert not any(Path(r["p"]).exists() for r in images)  # its extracted images went with it
    assert (await find_document(db, "survey.pdf")).key == second.doc_key
    await delete_document(db, second.doc_key, indexer.image_dir)  # delete leaves nothing
    assert await count(db, second.doc_key) == {"nodes": 0, "rels": 0}
    orphans = await db.run("MATCH (n) WHERE (n:TreeNode OR n:Page OR n:Entity) AND NOT (n)--() RETURN count(n) AS n")
    assert orphans[0]["n"] == 0
    with pytest.raises(DocumentNotFoundError):
        await find_document(db, "survey.pdf")


async def test_interrupted_write_is_resumed(db: Neo4jClient, indexer: Indexer, monkeypatch, delete_after) -> None:
    original = store.write_tree

    async def crash_after_first_batch(*args, **kwargs):
        def boom(n: int) -> None:
            raise RuntimeError("simulated crash")
        kwargs["progress"] = boom
        return await original(*args, **kwargs)

    monkeypatch.setattr("bookrag_neo4j.index.pipeline.write_tree", crash_after_first_batch)
    delete_after(file_key(need(RAG_SURVEY)))
    with pytest.raises(RuntimeError, match="simulated crash"):
        await indexer.index(await fresh(db, need(RAG_SURVEY)), embed=False, knowledge_graph=False, layout=False)
    monkeypatch.setattr("bookrag_neo4j.index.pipeline.write_tree", original)
    partial = await find_document(db, RAG_SURVEY.name)
    delete_after(partial.key)
    assert partial.tree is TreeStatus.WRITING  # the run that failed says why, in every door, until one succeeds
    assert partial.status == "failed" and partial.error == "RuntimeError: simulated crash" and partial.failed_at
    report = await indexer.index(RAG_SURVEY, embed=False, knowledge_graph=False, layout=False)
    assert report.status == "indexed"
    done = await find_document(db, RAG_SURVEY.name)
    assert done.status == "complete" and done.error is None and done.failed_at is None
    assert done.tree is TreeStatus.COMPLETE and done.tree_nodes == sum(report.blocks_by_type.values()) + sum(
        report.sections_by_level.values())
    assert done.embeddings is None and done.graph is None  # layers not run: no state recorded


async def test_a_forced_reindex_with_another_tree_equals_a_clean_index_of_that_tree(
        db: Neo4jClient, indexer: Indexer, delete_after) -> None:
    """``--force`` after a change of heading detector replaces the document's index, every layer with it (the
    old tree's sections and blocks used to stay beside the new ones, and the layers on them)."""
    pdf = await fresh(db, need(FOOTLOCKER))  # no outline: the detector makes the tree
    delete_after(file_key(pdf))
    base = await database_counts(db, detailed=True)
    first = await indexer.index(pdf)  # the default detector, every layer
    indexer.settings = indexer.settings.replace(headings="heuristic")
    second = await indexer.index(pdf, force=True)
    assert first.sections_by_level != second.sections_by_level  # the trees differ: the checks below can fail
    assert any("tree changed" in w for w in second.warnings), second.warnings
    assert second.layout is not None and second.content_graph is not None and second.graph is not None
    forced = await database_counts(db, detailed=True)
    await delete_document(db, second.doc_key)
    assert await database_counts(db, detailed=True) == base
    await indexer.index(pdf)
    assert await database_counts(db, detailed=True) == forced


async def test_bad_input_writes_nothing(db: Neo4jClient, indexer: Indexer, tmp_path) -> None:
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"%PDF-1.4 this is not really a PDF")
    (before,) = await db.run("MATCH (d:Document) RETURN count(d) AS n")
    with pytest.raises(DocumentError, match="not a readable PDF"):
        await indexer.index(bad)
    with pytest.raises(DocumentError, match="no such file"):
        await indexer.index(tmp_path / "nope.pdf")
    (after,) = await db.run("MATCH (d:Document) RETURN count(d) AS n")
    assert after == before


async def test_mineru_output_indexes(db: Neo4jClient, indexer: Indexer, delete_after) -> None:
    for row in await db.run("MATCH (d:Document {name: 'mineru_sample'}) RETURN d.key AS k"):
        await delete_document(db, row["k"])
    report = await indexer.index(mineru_output=MINERU_SAMPLE, embed=False, layout=False)
    delete_after(report.doc_key)
    assert report.status == "indexed" and report.heading_source == "mineru"  # MinerU's text_level, no LLM
    assert report.sections_by_level == {"L1": 2}  # its title (alone at level 1) is not a section
    kinds = await db.run("MATCH (n:TreeNode {doc_key: $k}) RETURN DISTINCT n.kind AS k", {"k": report.doc_key})
    assert {"section", "table", "image", "equation"} <= {r["k"] for r in kinds}


async def test_cli_index_stats_toc_and_delete(db: Neo4jClient, settings, neo4j_server, schema, tmp_path,
                                             delete_after) -> None:
    pdf = tmp_path / "cli-survey.pdf"
    shutil.copy(need(RAG_SURVEY), pdf)
    await fresh(db, pdf)
    delete_after(file_key(pdf))  # `docs delete` below is the test; this is for a failure before it
    proc = run_cli(settings, "index", str(pdf), "--no-llm", "--no-embed", "--stage", "tree", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["status"] in ("indexed", "replaced") and report["pages"] == 21 and report["graph"] is None
    again = run_cli(settings, "index", str(pdf), "--no-llm", "--no-embed", "--stage", "tree")
    assert "already indexed and unchanged" in again.stderr
    # (basic against gradient ER, both through the CLI: test_bench_graph_compares_basic_and_gradient_er)
    gradient = run_cli(settings, "index", "--stage", "graph", str(pdf), "--no-llm")
    assert "graph: " in gradient.stderr and "GT-Links" in gradient.stderr
    stats = json.loads(run_cli(settings, "stats", "cli-survey.pdf", "--json").stdout)
    assert stats["documents"] == 1 and stats["pages"] == 21 and stats["blocks_by_type"]["table"] >= 2
    g = stats["graph"]
    assert g["er_merges"] > 0 and g["entities"] > 0
    assert {"relations", "gt_links", "components", "density", "largest_component_diameter"} <= set(g)
    toc = json.loads(run_cli(settings, "toc", report["doc_key"][:12], "--json").stdout)
    assert toc[0]["level"] == 1 and toc[0]["title"] == "Introduction" and toc[0]["page"] == 1
    listed = json.loads(run_cli(settings, "docs", "list", "--json").stdout)
    assert any(d["name"] == "cli-survey.pdf" for d in listed)
    deleted = run_cli(settings, "docs", "delete", "cli-survey.pdf")
    assert deleted.returncode == 0 and "Deleted cli-survey.pdf" in deleted.stderr
    missing = run_cli(settings, "stats", "cli-survey.pdf")
    assert missing.returncode == 1 and "no indexed document" in missing.stderr


async def test_bench_graph_compares_basic_and_gradient_er(db: Neo4jClient, settings, neo4j_server, schema,
                                                           delete_after) -> None:
    pdf = need(BENCHMARKS / "financebench" / "pdfs" / "ULTABEAUTY_2023Q4_EARNINGS.pdf")  # 9 pages
    await fresh(db, pdf)
    delete_after(file_key(pdf))
    proc = run_cli(settings, "bench", "graph", str(pdf), "--no-llm", "--samples", "3", "--json")
    assert proc.returncode == 0, proc.stderr
    (row,) = json.loads(proc.stdout)
    basic, gradient = row["basic"], row["gradient"]
    assert basic["er"]["merges"] == 0 and gradient["er"]["merges"] == sum(row["merges"]["counts"].values())
    assert gradient["entities"] == basic["entities"] - gradient["er"]["merges"]  # each merge removes one entity
    assert row["entity_change"] < 0 and gradient["density"] > basic["density"]
    assert all(len(v) <= 3 for v in row["merges"]["samples"].values())
