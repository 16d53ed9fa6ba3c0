"""The indexing pipeline, idempotent and resumable: parse, sections, tree, Neo4j, embeddings, knowledge graph, layout.

    report = await Indexer(db, settings, models).index(Path("R-intro.pdf"))   # graph: an open Neo4jClient
    report.status        # "indexed", "unchanged" (same content already complete) or "replaced"
    report.graph         # the graph stage's report (entities, relations, GT-Links, ER decisions)

A document's key is the SHA-256 of its content, so the same file again changes nothing; the same path with new content
replaces the old index, while another file of the same name is a document of its own unless ``replace=True``
(``bookrag index --replace``). An interrupted run is simply run again: every write is a MERGE on content-hash keys,
the Document keeps ``status = 'writing'`` until its tree is complete, embedding continues with the blocks that have
none, and the graph (:mod:`bookrag_neo4j.kg.build`) and layout stages rebuild a layer that is not complete.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

from pydantic import BaseModel, Field

from ..config import Settings
from ..content.build import ContentGraphBuilder, ContentGraphReport
from ..db.client import Neo4jClient
from ..db.schema import apply_schema
from ..errors import DocumentError, DocumentNotFoundError, LeaseLostError, Neo4jUnavailableError, reason
from ..keys import document_key, file_key, stored_name, stored_path, stored_text
from ..kg.build import GraphBuilder, GraphReport
from ..layout.build import LayoutBuilder, LayoutReport
from ..library.cards import DocumentCard
from ..library.catalogue import delete_document
from ..library.documents import Document, EmbeddingsStatus, TreeStatus, get_document, match_documents
from ..library.layers import EvolutionMode
from ..library.stats import document_stats
from ..llm.factory import Models, index_dimensions
from ..llm.usage import track_usage
from ..parsing.blocks import ParsedDocument
from ..parsing.limits import split_long_blocks
from ..parsing.mineru import load_mineru_output
from ..parsing.ocr import OcrOptions
from ..parsing.pymupdf_parser import check_file, parse_pdf
from ..progress import ProgressCallback, stage
from ..tree.build import build_tree
from ..tree.detect import detect_headings
from ..tree.model import DocumentTree
from .card_reader import write_card
from .leases import LeaseManager, layers_key, under_lease
from .store import row_count, write_tree

log = logging.getLogger(__name__)

EMBED_BATCH = 256

A = TypeVar("A")
B = TypeVar("B")
R = TypeVar("R")


async def side_by_side(first: Coroutine[Any, Any, A], second: Coroutine[Any, Any, B]) -> tuple[A, B]:
    """Both results; a failure in one cancels the other and is raised as it is (``Neo4jUnavailableError``, not an
    ``ExceptionGroup`` around it), so callers catch the package's own errors."""
    try:
        async with asyncio.TaskGroup() as group:
            one, two = group.create_task(first), group.create_task(second)
    except BaseExceptionGroup as failed:
        error = failed.exceptions[0]
        raise error from error.__cause__
    return one.result(), two.result()


class IndexReport(BaseModel):
    """What one ``index`` call did, with its figures."""

    doc_key: str
    name: str
    title: str = ""
    status: Literal["indexed", "unchanged", "replaced"]
    pages: int = 0
    heading_source: str = ""
    blocks_by_type: dict[str, int] = Field(default_factory=dict)
    sections_by_level: dict[str, int] = Field(default_factory=dict)
    nodes_written: int = 0
    relationships_written: int = 0
    embedded: int = 0
    seconds: dict[str, float] = Field(default_factory=dict)
    llm_usage: dict[str, dict[str, int]] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)
    graph: GraphReport | None = None
    layout: LayoutReport | None = None
    content_graph: ContentGraphReport | None = None


class Indexer:
    """Indexes documents into one Neo4j database (a library)."""

    def __init__(self, db: Neo4jClient, settings: Settings, models: Models | None = None, *,
                 use_llm: bool = True, progress: ProgressCallback | None = None,
                 er_mode: Literal["gradient", "basic"] | None = None) -> None:
        self.db = db
        self.er_mode = er_mode
        self.settings = settings
        self._models = models
        self.use_llm = use_llm
        self.progress = progress
        self._schema_ready = False
        self._builder: GraphBuilder | None = None

    @property
    def models(self) -> Models:
        if self._models is None:
            self._models = Models.from_settings(self.settings)
        return self._models

    @property
    def image_dir(self) -> Path:
        return self.settings.image_dir

    async def _ensure_schema(self) -> None:
        if not self._schema_ready:  # the dimension may load the embedder's model: off the event loop
            dimensions = await asyncio.to_thread(index_dimensions, self.settings, self.models.embedder)
            await apply_schema(self.db, dimensions=dimensions)
            self._schema_ready = True

    async def index(self, path: Path | None = None, *, mineru_output: Path | None = None, embed: bool = True,
                    knowledge_graph: bool = True, layout: bool = True, content_graph: bool | None = None,
                    force: bool = False, replace: bool = False) -> IndexReport:
        """Index a PDF (or a MinerU output folder): the tree, block embeddings (``embed``), the knowledge
        graph (``knowledge_graph``), the layout layer (``layout``) and the content graph on it (``content_graph``; default:
        with the layout layer). ``replace``: replace the indexed documents of the same file name, wherever
        their file was (else only the one indexed from this path). Bad input raises ``DocumentError`` before
        anything is written.

        The block embeddings and the knowledge graph run side by side: the graph needs only the tree, and its
        extractor (spaCy, or an LLM service) works on one core while the embedder uses the rest.

        A run that fails records why on the document (its status is then ``failed`` in every door) and raises;
        one that succeeds clears an earlier failure."""
        try:
            report = await self._index(path, mineru_output=mineru_output, embed=embed, knowledge_graph=knowledge_graph,
                                       layout=layout, content_graph=content_graph, force=force, replace=replace)
        except (LeaseLostError, Neo4jUnavailableError):  # not the document's fault, or nowhere to record it
            raise
        except Exception as exc:
            await self._record_failure(path, exc)
            raise
        await self.db.write("library/clear_failure", key=report.doc_key)
        return report

    async def index_file(self, path: Path, **options: Any) -> IndexReport:
        """:meth:`index` of a PDF under its file's lease, as every door indexes (the workers of ``bookrag index``
        hold it themselves): while another process indexes the file this waits, then finds it indexed."""
        check_file(path)  # a bad file is refused before any lease
        key = await asyncio.to_thread(file_key, path)
        leases = LeaseManager(self.db, ttl=self.settings.indexing.index_lease_seconds)
        report = await under_lease(leases, key, lambda: self.index(path, **options), name=stored_name(path))
        return cast(IndexReport, report)

    async def _record_failure(self, path: Path | None, exc: Exception) -> None:
        """Best effort: the reason on the document's node, if it has one (a rejected file writes nothing)."""
        if path is None or not path.is_file():
            return
        try:
            await self.db.write("library/record_failure", key=await asyncio.to_thread(file_key, path),
                                   error=stored_text(reason(exc)), at=datetime.now(UTC).isoformat(timespec="seconds"))
        except Exception as record_exc:  # the failure itself is what the caller must see
            log.warning("could not record the failure of %s: %s", stored_name(path), record_exc)

    async def _index(self, path: Path | None, *, mineru_output: Path | None, embed: bool, knowledge_graph: bool,
                     layout: bool, content_graph: bool | None, force: bool, replace: bool) -> IndexReport:
        report = await self._index_tree(path, mineru_output=mineru_output, embed=embed and not knowledge_graph, force=force,
                                        replace=replace)
        if knowledge_graph and embed:
            async def timed_embed() -> int:
                began = time.perf_counter()
                embedded = await self.embed(report.doc_key)
                if report.status != "unchanged":
                    report.seconds["embed"] = round(time.perf_counter() - began, 3)
                return embedded

            report.embedded, report.graph = await side_by_side(timed_embed(), self.build_graph(report.doc_key,
                                                                                                force=force))
        elif knowledge_graph:
            report.graph = await self.build_graph(report.doc_key, force=force)
        if layout:
            report.layout = await self.build_layout(report.doc_key, force=force)
        if layout if content_graph is None else content_graph:
            report.content_graph = await self.build_content_graph(report.doc_key, force=force)
        return report

    async def build_content_graph(self, doc_key: str, *, evolution: EvolutionMode | None = None,
                                  force: bool = False) -> ContentGraphReport:
        """The content-graph stage alone (``bookrag index --stage content-graph``): G²-Reader's content graph on
        the layout layer (built first when missing); ``evolution`` lite, llm or off (default
        ``BOOKRAG_G2_EVOLUTION``)."""
        await self._ensure_schema()
        llm = self.models.llm if self.use_llm else None
        builder = ContentGraphBuilder(self.db, self.settings, self.models.embedder, llm=llm, progress=self.progress)
        return await self._under_layers_lease(doc_key, lambda: builder.build(doc_key, evolution=evolution, force=force))

    async def build_layout(self, doc_key: str, *, force: bool = False) -> LayoutReport:
        """The layout stage alone, on a document whose tree is indexed (``bookrag index --stage layout``)."""
        await self._ensure_schema()
        builder = LayoutBuilder(self.db, self.settings, self.models.embedder, progress=self.progress)
        return await self._under_layers_lease(doc_key, lambda: builder.build(doc_key, force=force))

    async def _under_layers_lease(self, doc_key: str, work: Callable[[], Awaitable[R]]) -> R:
        """``work`` (a layer build) while no question's method builds a layer of the same document."""
        leases = LeaseManager(self.db, ttl=self.settings.indexing.index_lease_seconds)
        return cast(R, await under_lease(leases, layers_key(doc_key), work))

    async def build_graph(self, doc_key: str, *, force: bool = False) -> GraphReport:
        """The graph stage alone, on a document whose tree is indexed (``bookrag index --stage graph``)."""
        if self._builder is None:  # kept: it holds the loaded extractor
            self._builder = GraphBuilder(self.db, self.settings, self.models, use_llm=self.use_llm)
        self._builder.er_mode = self.er_mode or self.settings.kg.er_mode
        self._builder.progress = self.progress
        return await self._builder.build(doc_key, force=force)

    async def _index_tree(self, path: Path | None, *, mineru_output: Path | None, embed: bool,
                          force: bool, replace: bool = False) -> IndexReport:
        if (path is None) == (mineru_output is None):
            raise DocumentError("give either a PDF path or a MinerU output folder")
        await self._ensure_schema()
        timings: dict[str, float] = {}
        began = time.perf_counter()
        parsed: ParsedDocument | None = None
        if path is not None:
            check_file(path)
            key = file_key(path)  # known before parsing: an unchanged PDF is not parsed again
        else:
            assert mineru_output is not None
            parsed = await asyncio.to_thread(load_mineru_output, mineru_output)
            key = document_key(parsed.content_hash)
        existing = await get_document(self.db, key)
        if existing is not None and existing.tree is TreeStatus.COMPLETE and not force:
            return await self._unchanged(existing, embed)
        if parsed is None:
            assert path is not None
            with stage(self.progress, f"parsing {stored_name(path)}") as parsing:
                try:
                    parsed = await asyncio.to_thread(
                        parse_pdf, path, image_dir=self.image_dir, tables=self.settings.indexing.tables,
                        on_page=parsing.update, workers=self.settings.indexing.parse_workers,
                        ocr_options=OcrOptions.of(self.settings))
                except (DocumentError, asyncio.CancelledError):
                    raise
                except Exception as exc:  # MuPDF on a damaged page: nothing is written yet
                    raise DocumentError(f"{stored_name(path)} could not be parsed (damaged PDF?): "
                                        f"{type(exc).__name__}: {' '.join(str(exc).split())}") from exc
        timings["parse"] = time.perf_counter() - began
        had_tree = existing is not None and existing.tree is TreeStatus.COMPLETE  # forced: compared with the new tree
        return await self._index_parsed(parsed, timings, embed=embed, replace=replace, had_tree=had_tree)

    async def _unchanged(self, existing: Document, embed: bool) -> IndexReport:
        if existing.card is None:  # indexed before cards were read
            await self.card(existing.key)
        embedded = await self.embed(existing.key) if embed else 0
        stats = await document_stats(self.db, existing.key)
        log.info("%s is already indexed and unchanged", existing.name)
        return IndexReport(doc_key=existing.key, name=existing.name, title=existing.title,
                           status="unchanged", pages=stats.pages, heading_source=existing.heading_source,
                           blocks_by_type=stats.blocks_by_type, sections_by_level=stats.sections_by_level,
                           embedded=embedded)

    async def _index_parsed(self, parsed: ParsedDocument, timings: dict[str, float], *, embed: bool,
                            replace: bool = False, had_tree: bool = False) -> IndexReport:
        parsed = split_long_blocks(parsed)
        doc_key = document_key(parsed.content_hash)
        name = stored_name(parsed.path if parsed.parser == "pymupdf" else parsed.path.parent)
        llm = self.models.llm if self.use_llm else None
        with track_usage() as ledger:
            began = time.perf_counter()
            headings, source, failed = await detect_headings(
                parsed, llm, detector=self.settings.indexing.headings, workers=self.settings.indexing.parse_workers,
                model=self.settings.indexing.heading_model)
            timings["sections"] = time.perf_counter() - began
        began = time.perf_counter()
        tree = build_tree(parsed, headings, source)
        timings["tree"] = time.perf_counter() - began
        warnings = list(parsed.warnings)
        if failed:
            warnings.append(f"{failed} section-filtering batch(es) failed; the offline detector's headings used for them")
        path = stored_path(parsed.path)
        namesakes = [d for d in await match_documents(self.db, name) if d.key != doc_key and d.name == name]
        replaced = [d for d in namesakes if replace or d.path == path]
        for old in replaced:
            log.info("replacing %s (key %s, from %s)", name, old.key, old.path)
            await delete_document(self.db, old.key, self.image_dir)
            warnings.append(f"replaced the earlier index of {old.path} (key {old.key[:12]})")
        if had_tree and await self._tree_changed(tree):
            warnings.append("the document's tree changed (another heading detector or model): its earlier index, "
                            "every layer on it, was replaced")
        if kept := [d for d in namesakes if d not in replaced]:
            warnings.append(f"{len(kept)} other file(s) named {name} stay indexed as separate documents "
                            f"({', '.join(d.key[:12] for d in kept)}); --replace would replace them")
        document = {
            "name": name, "path": path, "title": tree.root.title, "pages": parsed.page_count,
            "parser": parsed.parser, "heading_source": source, "content_hash": parsed.content_hash,
            "indexed_at": datetime.now(UTC).isoformat(timespec="seconds"), "warnings": warnings,
        }
        began = time.perf_counter()
        with stage(self.progress, f"writing {name}", row_count(tree, parsed)) as writing:
            stats = await write_tree(self.db, tree, parsed, document, progress=writing.advance)
        timings["write"] = time.perf_counter() - began
        await self.card(doc_key)
        embedded = 0
        if embed:
            began = time.perf_counter()
            embedded = await self.embed(doc_key)
            timings["embed"] = time.perf_counter() - began
        usage = ledger.total()  # the tree stage's cost, on the Document for BI (cypher/bi/index_cost)
        await self.db.write("tree/merge_document", key=doc_key, props={
            "index_seconds": round(sum(timings.values()), 2), "index_llm_calls": usage.calls,
            "index_tokens": usage.total_tokens})
        nodes = list(tree.nodes())
        return IndexReport(
            doc_key=doc_key, name=name, title=tree.root.title, status="replaced" if replaced else "indexed",
            pages=parsed.page_count, heading_source=source,
            blocks_by_type=dict(sorted(Counter(n.kind for n in nodes if n.kind not in ("document", "section")).items())),
            sections_by_level=dict(sorted(Counter(f"L{n.level}" for n in nodes if n.kind == "section").items())),
            nodes_written=stats.nodes, relationships_written=stats.relationships, embedded=embedded,
            seconds={k: round(v, 3) for k, v in timings.items()}, llm_usage=ledger.as_dict(), warnings=warnings,
        )

    async def card(self, doc_key: str) -> DocumentCard:
        """Read the document's card from its first pages and its file, keeping what its user set
        (:mod:`bookrag_neo4j.index.card_reader`)."""
        found = await get_document(self.db, doc_key)
        if found is None:
            raise DocumentNotFoundError(f"no indexed document {doc_key!r}")
        return await write_card(self.db, found, self.models.embedder, self.models.llm if self.use_llm else None)

    async def _tree_changed(self, tree: DocumentTree) -> bool:
        """Whether the stored tree of a forced re-index has other sections or blocks than ``tree``; then the
        document's index is deleted (its layers point at the old tree's nodes) and the caller writes it anew.
        The extracted images stay: this run's parse has just written them."""
        stored = set(await self.db.read_rows("tree/node_keys", doc_key=tree.doc_key))
        if stored == {n.key for n in tree.nodes() if n.kind != "document"}:
            return False
        log.info("the tree of %s changed: replacing its index", tree.doc_key)
        await delete_document(self.db, tree.doc_key)
        return True

    async def embed(self, doc_key: str) -> int:
        """Embed the document's content blocks that have no embedding yet (resumable)."""
        done = 0
        embedder = self.models.embedder.name
        with stage(self.progress, "embedding blocks") as embedding:
            while rows := await self.db.read("tree/leaves_without_embedding", doc_key=doc_key, limit=EMBED_BATCH):
                if not done:
                    await self.db.write("tree/set_embeddings_status", doc_key=doc_key,
                                           status=EmbeddingsStatus.EMBEDDING.value, embedder=embedder)
                vectors = await self.models.embedder.embed([r["text"][:2000] for r in rows])
                await self.db.write("tree/set_embeddings", rows=[
                    {"key": r["key"], "embedding": v} for r, v in zip(rows, vectors, strict=True)])
                done += len(rows)
                embedding.advance(len(rows))
        await self.db.write("tree/set_embeddings_status", doc_key=doc_key, status=EmbeddingsStatus.COMPLETE.value,
                               embedder=embedder)
        return done
