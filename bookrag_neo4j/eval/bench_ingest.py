"""``bookrag bench ingest``: indexing throughput per stage on a set of PDFs, without an LLM.

:func:`bench_ingest` times the tree stages: parsing (the slow part is PyMuPDF's table finder, on ``workers``
processes: :mod:`bookrag_neo4j.parsing.table_pool`), then each tree is written to Neo4j in a separate timed
step. :func:`bench_ingest_all_stages` runs the whole pipeline (``Indexer``: parse, sections, tree, write, then
block embeddings beside the graph's extraction, name embeddings, entity resolution and writes, then the layout
layer and content graph) and reports seconds and throughput per stage, each stage's total, the wall time of
the whole index and its pages/s, and the layout layer's time as a share of the tree stage's
(``layout_vs_tree``). Every document is indexed from scratch, so the figures are for fresh writes: the tree
bench writes under keys of its own and deletes them after; ``--all-stages`` deletes and re-indexes the
documents themselves, LLM-free (run it on another instance, ``--instance``, to keep a library's LLM-built
graphs).
"""

from __future__ import annotations

import asyncio
import dataclasses
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import cast

from pydantic import BaseModel

from ..config import Settings
from ..db.client import Neo4jClient
from ..db.schema import apply_schema
from ..errors import DocumentError
from ..index.pipeline import Indexer, IndexReport
from ..index.store import write_tree
from ..keys import file_key
from ..library.catalogue import delete_document
from ..llm.factory import Models
from ..parsing.pymupdf_parser import parse_pdf
from ..parsing.tables import TableMode
from ..tree.build import build_tree
from ..tree.detect import Detector, detect_headings
from ..tree.learned import HeadingModel


class IngestDocument(BaseModel):
    """One PDF's tree stages: seconds, what was parsed and what its write made."""

    document: str
    pages: int
    blocks: int
    sections_from: str
    tables: int
    parse_s: float
    tree_s: float
    write_s: float
    nodes: int
    relationships: int


class IngestBench(BaseModel):
    """The tree stages over the PDFs: throughput and seconds per stage (``failed``: name -> why)."""

    tables_mode: str
    headings: str
    parse_workers: int
    documents: int
    failed: dict[str, str]
    pages: int
    tables: int
    parse_pages_per_s: float | None
    write_items_per_s: float | None
    end_to_end_pages_per_s: float | None
    seconds: dict[str, float]  # parse, tree, write
    per_document: list[IngestDocument]


class StagesBench(BaseModel):
    """Every indexing stage over the PDFs, LLM-free (see :func:`bench_ingest_all_stages`)."""

    documents: int
    failed: dict[str, str]
    pages: int
    embedded: int
    entities: int
    mentions: int
    parse_workers: int
    seconds: dict[str, float]  # per stage: tree.parse, graph.extract, layout.write, ...
    total_s: float
    stage_s: dict[str, float]  # per layer: tree, graph, layout, content_graph
    layout_vs_tree: float | None
    content_graph_vs_tree: float | None
    wall_s: dict[str, float]  # tree+graph (which overlap), layout+content_graph
    index_pages_per_s: float | None
    per_second: dict[str, float]
    units: str = "tree.embed: blocks/s; graph.*: extracted mentions/s; other tree stages: pages/s"


async def bench_ingest(db: Neo4jClient, paths: list[Path], *, dimensions: int, tables: str = "regions",
                       workers: int = 1, headings: Detector = "auto",
                       model: HeadingModel | None = None) -> IngestBench:
    """Parse, sections and a fresh tree write of each PDF, timed apart. Each tree is written under a key of its
    own (``bench-`` and the content hash) and deleted after, so a library that holds the same PDF keeps its
    index. The schema is applied first: its key constraints make the writes' lookups index seeks (on a new server
    without them each write scans a label, and the figures would be the missing indexes'). ``dimensions``: the
    vector indexes' (``index_dimensions``)."""
    await apply_schema(db, dimensions=dimensions)
    rows: list[IngestDocument] = []
    failed: dict[str, str] = {}
    for path in paths:
        began = time.perf_counter()
        try:
            parsed = await asyncio.to_thread(parse_pdf, path, tables=cast(TableMode, tables), workers=workers)
        except DocumentError as exc:
            failed[path.name] = str(exc)
            continue
        parse_s = time.perf_counter() - began
        began = time.perf_counter()
        found, source, _ = await detect_headings(parsed, detector=headings, workers=workers, model=model)
        parsed = dataclasses.replace(parsed, content_hash=f"bench-{parsed.content_hash}")  # keys of its own
        tree = build_tree(parsed, found, source)
        tree_s = time.perf_counter() - began
        await delete_document(db, tree.doc_key)  # left by a bench run that was killed
        stats = await write_tree(db, tree, parsed, {"name": path.name, "title": tree.root.title})
        await delete_document(db, tree.doc_key)
        rows.append(IngestDocument(
            document=path.name, pages=parsed.page_count, blocks=len(parsed.blocks), sections_from=source,
            tables=sum(b.kind == "table" for b in parsed.blocks), parse_s=round(parse_s, 2), tree_s=round(tree_s, 3),
            write_s=round(stats.seconds, 2), nodes=stats.nodes, relationships=stats.relationships))
    pages = sum(r.pages for r in rows)
    parse = sum(r.parse_s for r in rows)
    tree_s = sum(r.tree_s for r in rows)
    write = sum(r.write_s for r in rows)
    written = sum(r.nodes + r.relationships for r in rows)
    return IngestBench(
        tables_mode=tables, headings=headings, parse_workers=workers, documents=len(rows), failed=failed, pages=pages,
        tables=sum(r.tables for r in rows), parse_pages_per_s=round(pages / parse, 1) if parse else None,
        write_items_per_s=round(written / write) if write else None,
        end_to_end_pages_per_s=round(pages / (parse + tree_s + write), 1) if pages else None,
        seconds={"parse": round(parse, 1), "tree": round(tree_s, 2), "write": round(write, 1)}, per_document=rows)


async def bench_ingest_all_stages(db: Neo4jClient, settings: Settings, models: Models,
                                  paths: list[Path]) -> StagesBench:
    """Every indexing stage, LLM-free: seconds per stage summed over the documents, pages/s per tree stage,
    blocks embedded/s, extracted mentions/s for the graph stages; the wall time of the whole index (tree, block
    embeddings and knowledge graph, which overlap) and its pages/s (``index_pages_per_s``), then of the layout
    layer and content graph. Each document is deleted first and the
    extraction store is a fresh temporary one, so nothing comes from earlier runs."""
    seconds: dict[str, float] = defaultdict(float)
    totals: dict[str, int] = defaultdict(int)
    wall: dict[str, float] = defaultdict(float)  # stages overlap (block embeddings run beside the graph stage)
    failed: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="bookrag-bench-") as scratch:
        indexer = Indexer(db, settings.replace(cache_dir=Path(scratch)), models, use_llm=False)
        for path in paths:
            try:
                await delete_document(db, file_key(path))
                began = time.perf_counter()
                report = await indexer.index(path, layout=False, content_graph=False)
                wall["tree+graph"] += time.perf_counter() - began
                began = time.perf_counter()
                report.layout = await indexer.build_layout(report.doc_key)
                report.content_graph = await indexer.build_content_graph(report.doc_key)
                wall["layout+content_graph"] += time.perf_counter() - began
            except DocumentError as exc:
                failed[path.name] = str(exc)
                continue
            _add(seconds, totals, report)
    per_second = {stage: round((totals["embedded"] if stage == "tree.embed" else
                                totals["mentions"] if stage.startswith("graph.") else totals["pages"]) / s, 1)
                  for stage, s in seconds.items() if s >= 0.05}
    stage_s = {name: round(sum(v for k, v in seconds.items() if k.startswith(f"{name}.")), 2)
               for name in ("tree", "graph", "layout", "content_graph")}
    return StagesBench(
        documents=len(paths) - len(failed), failed=failed, pages=totals["pages"], embedded=totals["embedded"],
        entities=totals["entities"], mentions=totals["mentions"], parse_workers=settings.indexing.parse_workers,
        seconds={k: round(v, 2) for k, v in seconds.items()}, total_s=round(sum(seconds.values()), 1), stage_s=stage_s,
        layout_vs_tree=round(stage_s["layout"] / stage_s["tree"], 3) if stage_s["tree"] else None,
        content_graph_vs_tree=round(stage_s["content_graph"] / stage_s["tree"], 3) if stage_s["tree"] else None,
        wall_s={k: round(v, 2) for k, v in wall.items()},
        index_pages_per_s=round(totals["pages"] / wall["tree+graph"], 2) if wall["tree+graph"] else None,
        per_second=per_second)


def _add(seconds: dict[str, float], totals: dict[str, int], report: IndexReport) -> None:
    for stage, value in report.seconds.items():
        seconds[f"tree.{stage}"] += value
    for stage, value in (report.graph.seconds if report.graph else {}).items():
        seconds[f"graph.{stage}"] += value
    for stage, value in (report.layout.seconds if report.layout else {}).items():
        seconds[f"layout.{stage}"] += value
    for stage, value in (report.content_graph.seconds if report.content_graph else {}).items():
        seconds[f"content_graph.{stage}"] += value
    totals["pages"] += report.pages
    totals["embedded"] += report.embedded
    totals["entities"] += report.graph.entities if report.graph else 0
    totals["mentions"] += report.graph.extracted_mentions if report.graph else 0

