"""Indexing through the SDK, for :class:`~bookrag_neo4j.sdk.BookRAG`: the one way in for every door (the CLI, the web
app, your code). A PDF is indexed under its file's lease (:mod:`bookrag_neo4j.index.leases`), as ``bookrag index
--workers N`` does: a document another process is indexing is waited for, never written by two at once.

    report = await rag.aindex("report.pdf")                                   # typed: IndexReport
    summary = await rag.aindex_many(["a.pdf", "b.pdf"], workers=2, options=IndexOptions(use_llm=False))
    graph = await rag.abuild_graph("report.pdf")                               # a layer alone: GraphReport
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .keys import file_key

if TYPE_CHECKING:  # the pipeline loads on first use: a question needs none of it
    from .config import Settings
    from .content.build import ContentGraphReport
    from .db.client import Neo4jClient
    from .index.pipeline import Indexer, IndexReport
    from .index.workers import IndexOptions, IndexSummary, WorkerEvent
    from .kg.build import GraphReport
    from .layout.build import LayoutReport
    from .library.cards import DocumentCard
    from .library.documents import Document
    from .library.layers import EvolutionMode
    from .llm.factory import Models
    from .progress import ProgressCallback

ErMode = Literal["gradient", "basic"] | None

Parser = Literal["pymupdf", "mineru"]  # embedded PDF text, or MinerU's output

class IndexAccess:
    """The indexing part of the SDK; the class using it has ``settings``, ``models``, ``use_llm``, ``_indexers``,
    ``_client`` and ``adocument``."""

    settings: Settings
    use_llm: bool
    _indexers: dict[ErMode, Indexer]

    if TYPE_CHECKING:
        @property
        def models(self) -> Models: ...

        async def _client(self) -> Neo4jClient: ...

        async def adocument(self, doc: str) -> Document: ...

    async def aindex(self, path: str | Path | None = None, *, parser: Parser = "pymupdf",
                     mineru_output: Path | None = None, embed: bool = True, knowledge_graph: bool = True,
                     layout: bool = True, content_graph: bool | None = None, force: bool = False,
                     replace: bool = False, er_mode: ErMode = None, progress: ProgressCallback | None = None,
                     graph: bool | None = None) -> IndexReport:
        """Index a PDF: its tree, block embeddings (``embed``), knowledge graph (``knowledge_graph``; ``graph``, its
        former name, still works and warns), layout layer (``layout``) and content graph (``content_graph``;
        default: with the layout layer). An unchanged file is a no-op unless ``force``; ``replace`` replaces the
        indexed documents of the same file name wherever their file was. A PDF is indexed under its file's lease:
        while another process indexes it, this waits. ``parser="mineru"`` parses through MinerU, or pass
        ``mineru_output=FOLDER`` of a MinerU run; ``er_mode`` "basic" skips gradient entity resolution;
        ``progress`` receives stage updates. Bad input raises a ``DocumentError`` before anything is written."""
        if graph is not None:
            warnings.warn("BookRAG.index(graph=...) is now knowledge_graph=...", DeprecationWarning, stacklevel=2)
            knowledge_graph = graph
        if path is not None and parser == "mineru":
            from .parsing.mineru import run_mineru

            mineru_output = run_mineru(Path(path), self.settings.cache_dir / "mineru")
            path = None
        indexer = await self._indexer(er_mode, progress)
        options: dict[str, Any] = {"embed": embed, "knowledge_graph": knowledge_graph, "layout": layout,
                   "content_graph": content_graph, "force": force, "replace": replace}
        if path is None:  # a MinerU output folder: its key is known once it is read
            return await indexer.index(None, mineru_output=mineru_output, **options)
        return await indexer.index_file(Path(path), **options)

    async def aindex_many(self, paths: Sequence[str | Path], *, workers: int = 1, options: IndexOptions | None = None,
                          on_event: Callable[[WorkerEvent], None] | None = None,
                          progress: ProgressCallback | None = None) -> IndexSummary:
        """Index PDFs with ``workers`` worker processes (1: in this process, with this object's models and the
        ``progress`` callback), each under its file's lease, so that other commands on this or other machines
        share the work; one bad PDF is a ``failed`` outcome, not the end of the run. ``on_event`` gets each
        worker's events (a PDF started, finished, a worker exited)."""
        from .index.workers import IndexOptions, aindex_many

        options = options or IndexOptions(use_llm=self.use_llm)
        return await aindex_many(self.settings, paths, workers=workers, options=options, on_event=on_event,
                                 models=self.models if workers == 1 else None, progress=progress)

    async def abuild_graph(self, doc: str | Path, *, force: bool = False, er_mode: ErMode = None,
                           progress: ProgressCallback | None = None) -> GraphReport:
        """(Re)build the knowledge graph of an indexed document (key, key prefix, file name or its PDF)."""
        return await (await self._indexer(er_mode, progress)).build_graph(await self._key(doc), force=force)

    async def abuild_layout(self, doc: str | Path, *, force: bool = False,
                            progress: ProgressCallback | None = None) -> LayoutReport:
        """(Re)build the layout layer (SuperRAG's ToC, passages, table rows, SIMILAR) of an indexed document."""
        return await (await self._indexer(None, progress)).build_layout(await self._key(doc), force=force)

    async def abuild_content_graph(self, doc: str | Path, *, evolution: EvolutionMode | None = None, force: bool = False,
                                   progress: ProgressCallback | None = None) -> ContentGraphReport:
        """(Re)build G²-Reader's content graph of an indexed document (``evolution``: lite, llm or off)::

            rag.build_content_graph("report.pdf")                     # Lite evolution, no model
            rag.build_content_graph("report.pdf", evolution="llm")    # the paper's prompts (an LLM configured)
        """
        indexer = await self._indexer(None, progress)
        return await indexer.build_content_graph(await self._key(doc), evolution=evolution, force=force)

    async def aread_card(self, doc: str) -> DocumentCard:
        """Read a document's card again from its first pages and its file (what the user set stays)."""
        return await (await self._indexer(None, None)).card((await self.adocument(doc)).key)

    async def _key(self, doc: str | Path) -> str:
        """An indexed document's key, from its PDF or its key, key prefix or file name."""
        return file_key(Path(doc)) if Path(doc).is_file() else (await self.adocument(str(doc))).key

    async def _indexer(self, er_mode: ErMode, progress: ProgressCallback | None) -> Indexer:
        from .index.pipeline import Indexer

        if er_mode not in self._indexers:
            self._indexers[er_mode] = Indexer(await self._client(), self.settings, self.models, use_llm=self.use_llm,
                                              er_mode=er_mode)
        self._indexers[er_mode].progress = progress
        return self._indexers[er_mode]
