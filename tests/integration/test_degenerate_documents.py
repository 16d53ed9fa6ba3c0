"""Documents at the edges: text that is all page numbers (no blocks), only tables, one sentence on one page.
Every stage (tree, embeddings, knowledge graph, layout layer, content graph) completes on each, and every
method answers a question on each without an exception (an empty answer where there is nothing to find)."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from bookrag_neo4j.index.pipeline import Indexer
from bookrag_neo4j.library.catalogue import delete_document
from bookrag_neo4j.library.documents import get_document
from bookrag_neo4j.llm import Models
from bookrag_neo4j.methods import METHODS, Retriever

from ..helpers.timeouts import LONG_TEST

pytestmark = pytest.mark.timeout(LONG_TEST)


def furniture_only(path: Path) -> Path:
    """Six pages whose only text is a printed page number: furniture, so the tree has no block. (A line that only
    recurs like a running footer is kept where it is all the text there is: ``tests/unit/test_parsing.py``.)"""
    doc = pymupdf.open()
    for number in range(1, 7):
        page = doc.new_page()
        page.draw_rect(pymupdf.Rect(72, 100, 520, 600), color=(0.2, 0.2, 0.2), fill=(0.9, 0.9, 0.9))
        page.insert_text((72, page.rect.height - 30), f"Page {number} of 6", fontsize=7)
    doc.save(path)
    return path


def tables_only(path: Path) -> Path:
    """Two pages that hold nothing but a ruled table of figures each."""
    doc = pymupdf.open()
    for table in range(2):
        page = doc.new_page()
        for row in range(6):
            for col in range(4):
                cell = pymupdf.Rect(72 + col * 110, 100 + row * 22, 182 + col * 110, 122 + row * 22)
                page.draw_rect(cell, color=(0, 0, 0), width=0.7)
                text = ("Region" if col == 0 else f"Q{col} {2020 + table}") if row == 0 else (
                    f"Area {row}" if col == 0 else f"{row * col * 17.5:.1f}")
                page.insert_text((cell.x0 + 4, cell.y1 - 6), text, fontsize=9)
    doc.save(path)
    return path


def one_sentence(path: Path) -> Path:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Vega Space launched its first rocket from Kourou in 2024.", fontsize=11)
    doc.save(path)
    return path


@pytest.mark.parametrize("make", [furniture_only, tables_only, one_sentence], ids=lambda f: f.__name__)
async def test_every_stage_and_method_copes(db, settings, schema, tmp_path: Path, make) -> None:
    models = Models.from_settings(settings)
    local = settings.replace(data_dir=tmp_path)
    report = await Indexer(db, local, models, use_llm=False).index(make(tmp_path / f"{make.__name__}.pdf"),
                                                                      force=True)
    try:
        doc = await get_document(db, report.doc_key)
        assert doc is not None and doc.status == "complete", doc and doc.layer_states()
        assert doc.layer_states() == dict.fromkeys(("tree", "embeddings", "graph", "layout", "content_graph"),
                                                   "complete")
        if make is furniture_only:
            assert report.blocks_by_type == {} and doc.graph_counts.entities == 0 and doc.g2_counts.nodes == 0
        retriever = Retriever(db, local, models, use_llm=False)
        for method in METHODS:
            evidence = await retriever.retrieve("When did Vega launch its first rocket?", [report.doc_key],
                                                method=method)
            assert all(node.pages for node in evidence.nodes), method
            if make is furniture_only:
                assert evidence.nodes == [], method
    finally:
        await delete_document(db, report.doc_key, tmp_path)
