"""The layout stage (``bookrag index --stage layout DOC``): SuperRAG's layout-aware layer over a document's tree.

    report = await LayoutBuilder(db, settings, embedder).build(doc_key)
    report.status, report.counts   # "built" or "unchanged" (same config, complete); LayoutCounts: passages, ...

It adds (paper §3.2–§3.4, schema in docs/layout-layer.md) printed page labels, headers and footers; the table of
contents and master sections, titles embedded; passages of whole blocks; table rows with their header and heading;
REFERS_TO edges from text to the tables and figures it names; keywords and stems; GDS KNN ``SIMILAR`` edges. The
Document records ``layout_status`` ('building', then 'complete'), ``layout_config`` and the counts. A build first
removes whatever an earlier or interrupted one left, so a re-run, even after a kill, gives the same layer; the same
config on a complete layer is a no-op.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..config import Settings
from ..db.analytics import write_similar
from ..db.batching import batches
from ..db.client import Neo4jClient
from ..db.schema import apply_schema
from ..errors import DocumentError
from ..keys import layout_key, local_path, page_key, term_key
from ..library.catalogue import delete_layout
from ..library.documents import LayoutCounts, TreeStatus, get_document
from ..library.layers import layout_config, layout_current, mark_building, mark_complete
from ..llm.embedder import Embedder
from ..parsing.furniture import read_page_furniture
from ..parsing.ocr import OcrOptions
from ..progress import Laps, ProgressCallback, stage
from ..text.keywords import keywords_by_passage, stem
from ..text.references import Reference, mentions, reference_of
from .passages import LayoutBlock, PassageDraft, make_passages
from .table_rows import lead_in, table_rows

log = logging.getLogger(__name__)

EMBED_CHARS = 2000  # characters of a passage or row the embedder sees (as for blocks)
# What the embedder sees of a row: its heading's last part (the table's caption or lead-in, else the innermost
# section title) and its cells, cut at 200 characters (rows are many; at 300 characters with the whole section path
# they took 56% of the layer's time)
ROW_EMBED_CHARS = 200
WRITE_BATCH = 200
TREE_EDGE_TYPES = frozenset({"NEXT_SECTION", "REFERS_TO"})  # the allow-list for link_tree_nodes' $type


class LayoutReport(BaseModel):
    """What one layout build did."""

    doc_key: str
    name: str
    status: Literal["built", "unchanged"]
    config: str
    counts: LayoutCounts = Field(default_factory=LayoutCounts)
    seconds: dict[str, float] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)


class LayoutBuilder:
    """Builds the layout layer of indexed documents."""

    def __init__(self, db: Neo4jClient, settings: Settings, embedder: Embedder, *,
                 progress: ProgressCallback | None = None) -> None:
        self.db = db
        self.settings = settings
        self.embedder = embedder
        self.progress = progress

    async def build(self, doc_key: str, *, force: bool = False) -> LayoutReport:
        """Build (or rebuild) the layer of the document with key ``doc_key``; a no-op when it is complete with
        the same config, unless ``force``."""
        doc = await get_document(self.db, doc_key)
        if doc is None or doc.tree is not TreeStatus.COMPLETE:
            raise DocumentError(f"{doc_key}: no complete tree to build a layout layer on; index the PDF first")
        config = layout_config(self.settings, self.embedder.name)
        if layout_current(doc, self.settings, self.embedder.name) and not force:
            return LayoutReport(doc_key=doc_key, name=doc.name, status="unchanged", config=config,
                                counts=doc.layout_counts)
        lap = Laps()

        await apply_schema(self.db, dimensions=self.embedder.dimension, name="layout/schema")
        await mark_building(self.db, doc_key, "layout", config)
        await delete_layout(self.db, doc_key)
        lap("clear")
        warnings = await self._pages(doc_key, local_path(doc.path))
        lap("pages")
        await self._toc(doc_key)
        lap("toc")
        blocks = [LayoutBlock(**row) for row in await self.db.read_rows("layout/blocks", doc_key=doc_key)]
        passages = make_passages(blocks, words=self.settings.layout.passage_words)
        passage_keys = await self._passages(doc_key, passages)
        lap("passages")
        await self._table_rows(doc_key, blocks)
        lap("table_rows")
        await self._references(blocks)
        await self._keywords(passages, passage_keys)
        lap("keywords")
        await asyncio.to_thread(write_similar, self.db.conn, doc_key, top_k=self.settings.layout.knn_top_k,
                                cutoff=self.settings.layout.knn_cutoff)  # the GDS client: blocking
        await self.db.write("gds/dedupe_similar", doc_key=doc_key)  # one edge a mutual pair
        lap("similar")
        (row,) = await self.db.read("layout/counts", doc_key=doc_key)
        counts = LayoutCounts(**row)
        seconds = lap.total
        await mark_complete(self.db, doc_key, "layout", config, seconds=seconds, figures=counts.properties())
        log.info("layout layer of %s: %s in %.1fs", doc.name, counts, seconds)
        return LayoutReport(doc_key=doc_key, name=doc.name, status="built", config=config, counts=counts,
                            seconds=lap.seconds, warnings=warnings)

    async def _embed(self, texts: Sequence[str], name: str) -> list[list[float]]:
        vectors: list[list[float]] = []
        with stage(self.progress, f"layout: embedding {name}", len(texts)) as embedding:
            for batch in batches(texts, 256):
                vectors += await self.embedder.embed([t[:EMBED_CHARS] or " " for t in batch])
                embedding.advance(len(batch))
        return vectors

    async def _write(self, query: str, rows: Sequence[dict[str, Any]], **params: Any) -> None:
        for batch in batches(rows, WRITE_BATCH):
            await self.db.write(query, rows=list(batch), **params)

    async def _pages(self, doc_key: str, path: Path) -> list[str]:
        if not path.is_file() or path.suffix.lower() != ".pdf":
            return [f"{path}: the PDF is not there; pages have no printed labels, headers or footers"]
        furniture = await asyncio.to_thread(read_page_furniture, path, OcrOptions.of(self.settings))
        await self._write("layout/set_pages", [
            {"key": page_key(doc_key, n), "label": f.label, "header": f.header, "footer": f.footer}
            for n, f in furniture.items()])
        return []

    async def _toc(self, doc_key: str) -> None:
        sections = await self.db.read_rows("layout/sections", doc_key=doc_key)
        vectors = await self._embed([s["section_path"] or s["title"] for s in sections], "section titles")
        rows = [{"key": s["key"], "order": i, "master": s["top"], "embedding": v}
                for i, (s, v) in enumerate(zip(sections, vectors, strict=True))]
        if rows:
            await self.db.write("layout/write_toc", doc_key=doc_key, toc_key=layout_key(doc_key, "toc", ""),
                                   rows=rows)
        await self._link("NEXT_SECTION", [{"a": a["key"], "b": b["key"]} for a, b in pairwise(sections)])

    async def _link(self, edge: str, rows: list[dict[str, str]]) -> None:
        if edge not in TREE_EDGE_TYPES:
            raise ValueError(f"{edge} is not a layout edge type")
        await self._write("layout/link_tree_nodes", rows, type=edge)

    async def _passages(self, doc_key: str, passages: Sequence[PassageDraft]) -> list[str]:
        keys = [layout_key(doc_key, "passage", f"{i}|{p.blocks[0]}|{len(p.blocks)}") for i, p in enumerate(passages)]
        pooled = [p.pooled_embedding() for p in passages]
        missing = [i for i, v in enumerate(pooled) if v is None]  # blocks never embedded (index --no-embed)
        for i, v in zip(missing, await self._embed([passages[i].text for i in missing], "passages"), strict=True):
            pooled[i] = v
        vectors = pooled
        rows = [{"key": key, "doc_key": doc_key, "ordinal": i, "text": p.text, "heading": p.heading,
                 "section": p.section, "page_start": min(p.pages, default=0), "page_end": max(p.pages, default=0),
                 "blocks": p.blocks, "page_keys": [page_key(doc_key, n) for n in p.pages], "words": p.words,
                 "embedding": v}
                for i, (key, p, v) in enumerate(zip(keys, passages, vectors, strict=True))]
        await self._write("layout/write_passages", rows)
        await self._write("layout/link_passages", [{"a": a, "b": b} for a, b in pairwise(keys)])
        return keys

    async def _table_rows(self, doc_key: str, blocks: Sequence[LayoutBlock]) -> None:
        """Each table's rows, headed by the table's section path and name (its caption, else its lead-in)."""
        rows: list[dict[str, Any]] = []
        for at, table in enumerate(blocks):
            if table.kind != "table":
                continue
            heading = " > ".join(h for h in (table.section_path, table.caption or lead_in(blocks, at)) if h)
            for i, text in enumerate(table_rows(table.table_markdown)):
                rows.append({"key": layout_key(doc_key, "row", f"{table.key}|{i}"), "doc_key": doc_key,
                             "table": table.key, "order": i, "text": text, "heading": heading,
                             "page_start": table.page_start, "page_end": table.page_end})
        vectors = await self._embed([f"{r['heading'].split(' > ')[-1]}\n{r['text']}"[:ROW_EMBED_CHARS] for r in rows],
                                    "table rows")
        await self._write("layout/write_table_rows", [r | {"embedding": v} for r, v in zip(rows, vectors, strict=True)])

    async def _references(self, blocks: Sequence[LayoutBlock]) -> None:
        targets: dict[Reference, str] = {}
        for block in blocks:
            label = reference_of(block.caption) if block.kind in ("table", "image") else None
            if label is not None:
                targets.setdefault(label, block.key)
        rows = []
        for block in blocks:
            if block.kind != "text":
                continue
            own = reference_of(block.text)  # a caption block names its own table, it does not refer to it
            rows += [{"a": block.key, "b": targets[m]} for m in mentions(block.text) if m in targets and m != own]
        await self._link("REFERS_TO", rows)

    async def _keywords(self, passages: Sequence[PassageDraft], keys: Sequence[str]) -> None:
        found = keywords_by_passage([p.text for p in passages], top=self.settings.layout.keywords)
        await self._write("layout/write_keywords", [
            {"passage": key, "keyword": term_key(k), "stem": stem(k)} for key, words in zip(keys, found, strict=True)
            for k in words])
