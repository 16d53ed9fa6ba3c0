"""The layout layer on real documents: ToC entries equal the tree's sections, passages cover every content block
once, table rows equal the tables' rows, KNN's SIMILAR edges are bounded and never doubled, references resolve,
a rebuild gives the same layer, and deleting the document removes all of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from bookrag_neo4j.db.client import Neo4jClient
from bookrag_neo4j.db.gds import list_projections
from bookrag_neo4j.index.pipeline import Indexer
from bookrag_neo4j.keys import file_key
from bookrag_neo4j.layout.build import LayoutBuilder
from bookrag_neo4j.layout.passages import LayoutBlock
from bookrag_neo4j.layout.table_rows import lead_in, table_rows
from bookrag_neo4j.library.catalogue import delete_document
from bookrag_neo4j.library.documents import LayoutStatus, get_document
from bookrag_neo4j.library.layers import layout_config
from bookrag_neo4j.llm import Models
from bookrag_neo4j.retrieval.units import nearest_units
from bookrag_neo4j.text.references import mentions, reference_of

from ..helpers.pdfs import RAG_SURVEY, TEN_K, excerpt, need
from ..helpers.timeouts import LONG_TEST

pytestmark = pytest.mark.timeout(LONG_TEST)

LAYER_LABELS = ("Passage", "TableChunk", "TableOfContents")


@pytest.fixture(scope="module")
def models(settings) -> Models:
    return Models.from_settings(settings.replace(llm_provider="none"))


async def indexed(db: Neo4jClient, settings, models, path) -> str:
    """The PDF's tree (with embeddings, no knowledge graph), indexed once for the module's tests."""
    indexer = Indexer(db, settings, models, use_llm=False)
    return (await indexer.index(need(path), knowledge_graph=False)).doc_key


async def layer_snapshot(db: Neo4jClient, doc_key: str) -> dict:
    (row,) = await db.run("""
        MATCH (d:Document {key: $doc})
        RETURN
          COLLECT { MATCH (p:Passage {doc_key: $doc}) RETURN [p.key, p.text, p.page_start, p.page_end] } AS passages,
          COLLECT { MATCH (r:TableChunk {doc_key: $doc}) RETURN [r.key, r.text] } AS rows,
          COLLECT { MATCH (a {doc_key: $doc})-[s:SIMILAR]->(b) RETURN [a.key, b.key, s.score] } AS similar,
          COLLECT { MATCH (a:TreeNode {doc_key: $doc})-[:REFERS_TO]->(b) RETURN [a.key, b.key] } AS refs,
          COLLECT { MATCH (p:Passage {doc_key: $doc})-[r:HAS_KEYWORD]->(k)-[:HAS_STEM]->(s)
                    WHERE r.layer IS NULL  // the layer's own (the content graph on it adds its own and goes with it)
                    RETURN [p.key, k.key, s.key] } AS keywords,
          COLLECT { MATCH (p:Page {doc_key: $doc}) RETURN [p.number, p.label, p.header, p.footer] } AS pages
        """, {"doc": doc_key})
    return {k: sorted(map(tuple, v)) for k, v in row.items()}


async def test_layout_layer_of_a_10k(db: Neo4jClient, settings, models, schema, tmp_path: Path) -> None:
    # 26 pages of it (MD&A to the financial statements): tables, printed page numbers, running headers
    doc_key = await indexed(db, settings, models, excerpt(TEN_K, tmp_path / "10k-excerpt.pdf", 30, 55))
    try:
        builder = LayoutBuilder(db, settings, models.embedder)
        doc = await get_document(db, doc_key)  # indexing built the layer: the layout stage is part of index()
        assert doc is not None and doc.layout is LayoutStatus.COMPLETE
        assert doc.layout_config == layout_config(settings, models.embedder.name)
        counts = doc.layout_counts
        assert counts.passages > 0, counts

        # ToC entries are the tree's sections, in reading order; top-level sections are MasterSections
        (toc,) = await db.run("""
            MATCH (d:Document {key: $doc})-[:HAS_TOC]->(t)-[e:HAS_ENTRY]->(s)
            WITH d, s, e ORDER BY e.order
            RETURN collect(s.key) AS entries, collect(s.order) AS orders,
                   COLLECT { MATCH (x:TreeNode {doc_key: $doc}) WHERE x:Section RETURN x.key } AS sections,
                   COLLECT { MATCH (d)-[:HAS_CHILD]->(m:Section) RETURN m.key } AS top,
                   COLLECT { MATCH (m:TreeNode:MasterSection {doc_key: $doc}) RETURN m.key } AS masters,
                   COLLECT { MATCH (x:TreeNode {doc_key: $doc}) WHERE x:Section AND x.title_embedding IS NULL
                             RETURN x.key } AS unembedded
            """, {"doc": doc_key})
        assert sorted(toc["entries"]) == sorted(toc["sections"]) and toc["orders"] == sorted(toc["orders"])
        assert sorted(toc["masters"]) == sorted(toc["top"]) and toc["top"] and not toc["unembedded"]

        # every content block is covered by exactly one passage; a passage stays within one section
        (cover,) = await db.run("""
            MATCH (b:TreeNode {doc_key: $doc}) WHERE NOT b:Section
            OPTIONAL MATCH (p:Passage)-[:COVERS]->(b)
            WITH b, count(p) AS n
            RETURN count(b) AS blocks, sum(CASE WHEN n = 1 THEN 1 ELSE 0 END) AS once,
                   COUNT { MATCH (p:Passage {doc_key: $doc})-[:COVERS]->(x) OPTIONAL MATCH (s:Section)-[:HAS_CHILD]->(x)
                           WITH p, count(DISTINCT s) AS parents WHERE parents > 1 RETURN p } AS crossing,
                   COUNT { MATCH (p:Passage {doc_key: $doc}) WHERE NOT (p)-[:ON_PAGE]->(:Page) RETURN p } AS pageless
            """, {"doc": doc_key})
        assert cover["blocks"] == cover["once"] > 0 and cover["crossing"] == 0 and cover["pageless"] == 0
        # NEXT links the passages in a single chain
        (chain,) = await db.run("""
            MATCH (p:Passage {doc_key: $doc}) OPTIONAL MATCH (p)-[:NEXT]->(q:Passage)
            RETURN count(p) AS passages, count(q) AS links""", {"doc": doc_key})
        assert chain["links"] == chain["passages"] - 1

        # table rows equal the rows of each table's Markdown, in order
        tables = await db.run("""
            MATCH (t:Table {doc_key: $doc})
            RETURN t.table_markdown AS md, [(t)-[h:HAS_ROW]->(r) | [h.order, r.text]] AS rows""", {"doc": doc_key})
        assert tables and sum(len(t["rows"]) for t in tables) == counts.table_rows > 0
        for table in tables:
            assert [text for _, text in sorted(table["rows"])] == table_rows(table["md"] or "")
        # a row's heading is its table's section path and name: the caption, else the lead-in (a statement's title)
        blocks = [LayoutBlock(**r) for r in await db.read_rows("layout/blocks", doc_key=doc_key)]
        named = {b.key: " > ".join(h for h in (b.section_path, b.caption or lead_in(blocks, i)) if h)
                 for i, b in enumerate(blocks) if b.kind == "table"}
        headings = {r["table"]: r["heading"] for r in await db.run("""
            MATCH (t:Table {doc_key: $doc})-[:HAS_ROW]->(r) RETURN DISTINCT t.key AS table, r.heading AS heading""",
                                                                   {"doc": doc_key})}
        assert headings == {k: v for k, v in named.items() if k in headings}
        operations = [t for t, h in headings.items()
                      if h.endswith("CONSOLIDATED STATEMENTS OF OPERATIONS (in millions, except per share data)")]
        assert len(operations) == 1, headings
        # so a row is found by the statement it is in (its embedding reads the heading's last part)
        vector = (await models.embedder.embed(["Net income in the consolidated statements of operations"]))[0]
        (best, _), = await nearest_units(db, doc, vector, kind="row", top=1)
        assert best in {r["key"] for r in await db.run(
            "MATCH (:Table {key: $table})-[:HAS_ROW]->(r) RETURN r.key AS key", {"table": operations[0]})}

        # SIMILAR: at most topK out of each node, no pair twice, scores above the cutoff; no projection left
        snap = await layer_snapshot(db, doc_key)
        out: dict[str, int] = {}
        pairs = set()
        for a, b, score in snap["similar"]:
            out[a] = out.get(a, 0) + 1
            assert frozenset((a, b)) not in pairs and score >= settings.layout.knn_cutoff
            pairs.add(frozenset((a, b)))
        assert pairs and max(out.values()) <= settings.layout.knn_top_k
        assert await list_projections(db) == []
        # a 10-K prints its page numbers: most pages get a label, and the running header is kept
        assert sum(1 for _, label, _, _ in snap["pages"] if label) > len(snap["pages"]) / 2
        assert any("Table of Contents" in header for _, _, header, _ in snap["pages"])
        assert snap["keywords"]

        # the same config again is a no-op; a forced rebuild gives the same layer
        assert (await builder.build(doc_key)).status == "unchanged"
        await builder.build(doc_key, force=True)
        assert await layer_snapshot(db, doc_key) == snap
    finally:
        await delete_document(db, doc_key)
    (left,) = await db.run("""
        RETURN COUNT { MATCH (n) WHERE n.doc_key = $doc RETURN n } AS nodes,
               COUNT { MATCH (k:Keyword) WHERE NOT (k)<-[:HAS_KEYWORD]-() RETURN k } AS orphan_keywords,
               COUNT { MATCH (s:Stem) WHERE NOT (s)<-[:HAS_STEM]-() RETURN s } AS orphan_stems""", {"doc": doc_key})
    assert left == {"nodes": 0, "orphan_keywords": 0, "orphan_stems": 0}


async def test_references_resolve_to_captioned_tables_and_figures(db: Neo4jClient, settings, models, schema) -> None:
    doc_key = await indexed(db, settings, models, RAG_SURVEY)
    try:
        counts = (await get_document(db, doc_key)).layout_counts  # indexing built the layer
        refs = await db.run("""
            MATCH (t:Text {doc_key: $doc})-[:REFERS_TO]->(x)
            RETURN t.text AS text, labels(x) AS labels, x.caption AS caption""", {"doc": doc_key})
        assert refs and counts.refers_to == len(refs)
        for ref in refs:  # the caption's own name is named in the text that refers to it
            name = reference_of(ref["caption"])
            assert name in mentions(ref["text"]) and name != reference_of(ref["text"])
            assert ("Table" in ref["labels"]) == (name.family == "table")
    finally:
        await delete_document(db, doc_key)
    assert file_key(RAG_SURVEY) == doc_key
