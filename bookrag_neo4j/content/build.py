"""The content-graph stage (``bookrag index --stage content-graph DOC``): G²-Reader's content graph (paper §3.2).

    report = await ContentGraphBuilder(db, settings, embedder, llm=None).build(doc_key, evolution="lite")
    report.status, report.counts          # "built" or "unchanged"; ContentCounts(nodes, window_links, ...)

Nodes (``:ContentNode``: h(0) and the evolved h(T)) are the layout layer's passages and the tables and images they
cover, in reading order, linked by ``G2_LINK`` (window, knn, llm) and to the shared keywords; a missing layout layer is
built first. Offline, the summary is the section path with the caption or first sentence, the keywords TF-IDF terms,
h(0) the stored text embedding or Enc(summary ⊕ keywords) (``BOOKRAG_G2_NODE_EMBEDDING``, docs/eval/g2-ablations.md);
``--evolution llm`` uses the paper's prompts (:mod:`.llm`). The Document records ``g2_status``, ``g2_config`` and
counts; the same config on a complete graph is a no-op, a rebuild removes the old one. See docs/content-graph.md.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from ..config import Settings
from ..db.batching import batches
from ..db.client import Neo4jClient
from ..db.schema import apply_schema
from ..errors import DocumentError
from ..keys import term_key
from ..layout.build import LayoutBuilder
from ..library.catalogue import delete_content_graph
from ..library.documents import ContentCounts, Document, LayoutStatus, get_document
from ..library.layers import EvolutionMode, content_config, content_current, mark_building, mark_complete
from ..llm.chat import ChatModel
from ..llm.embedder import Embedder
from ..progress import Laps, ProgressCallback, stage
from ..text.keywords import stem
from . import llm as llm_steps
from .evolve import lite_evolution, window_pairs
from .nodes import Attributes, ContentNode, offline_attributes

log = logging.getLogger(__name__)

WRITE_BATCH = 200
EMBED_CHARS = 2000


class ContentGraphReport(BaseModel):
    """What one content-graph build did."""

    doc_key: str
    name: str
    status: Literal["built", "unchanged"]
    config: str
    evolution: str = "lite"
    counts: ContentCounts = Field(default_factory=ContentCounts)
    seconds: dict[str, float] = Field(default_factory=dict)


class ContentGraphBuilder:
    """Builds the content graph of documents that have (or get) the layout layer."""

    def __init__(self, db: Neo4jClient, settings: Settings, embedder: Embedder, *, llm: ChatModel | None = None,
                 progress: ProgressCallback | None = None) -> None:
        self.db = db
        self.settings = settings
        self.embedder = embedder
        self.llm = llm
        self.progress = progress

    def config(self, doc: Document, evolution: EvolutionMode) -> str:
        """The config a build of ``doc`` (as read, its layout layer built) with ``evolution`` would record."""
        return content_config(self.settings, self.embedder.name, doc, evolution, self.llm.name if self.llm else None)

    def current(self, doc: Document, evolution: EvolutionMode | None = None) -> bool:
        """Whether ``doc`` (as read) has a complete content graph of this config: what :meth:`build` would leave
        alone, decided without a query."""
        return content_current(doc, self.settings, self.embedder.name, evolution or self.settings.g2.evolution,
                               self.llm.name if self.llm else None)

    async def build(self, doc_key: str, *, evolution: EvolutionMode | None = None,
                    force: bool = False) -> ContentGraphReport:
        """Build (or rebuild) the content graph of ``doc_key``; a no-op when it is complete with the same config."""
        evolution = evolution or self.settings.g2.evolution
        if evolution == "llm" and self.llm is None:
            raise DocumentError("--evolution llm needs an LLM: configure one (OPENAI_BASE_URL, BOOKRAG_LLM_*) or "
                                "use --evolution lite")
        doc = await get_document(self.db, doc_key)
        if doc is None:
            raise DocumentError(f"{doc_key}: no such document")
        if doc.layout is not LayoutStatus.COMPLETE:
            await LayoutBuilder(self.db, self.settings, self.embedder, progress=self.progress).build(doc_key)
            doc = await get_document(self.db, doc_key)
            assert doc is not None
        config = self.config(doc, evolution)
        if self.current(doc, evolution) and not force:
            return ContentGraphReport(doc_key=doc_key, name=doc.name, status="unchanged", config=config,
                                      evolution=evolution, counts=doc.g2_counts)
        lap = Laps()

        await apply_schema(self.db, dimensions=self.embedder.dimension, name="content/schema")
        await delete_content_graph(self.db, doc_key)
        await mark_building(self.db, doc_key, "g2", config)
        lap("clear")
        nodes = [ContentNode(**row) for row in await self.db.read_rows("content/nodes", doc_key=doc_key)]
        use_llm = evolution == "llm"
        if use_llm:
            assert self.llm is not None
            attributes = await llm_steps.node_attributes(self.llm, nodes, progress=self.progress)
        else:
            attributes = await asyncio.to_thread(offline_attributes, nodes, keywords=self.settings.g2.keywords)
        initial = await self._initial(nodes, attributes, summary=use_llm or self.settings.g2.node_embedding == "summary")
        lap("nodes")
        links = [{"a": nodes[i].key, "b": nodes[j].key, "kind": "window", "t": 0,
                  "score": float(initial[i] @ initial[j])} for i, j in window_pairs(len(nodes), self.settings.g2.window)]
        rounds = self.settings.g2.rounds if evolution != "off" else 0
        evolved = initial
        if evolution == "lite" and len(nodes) > 1:
            result = await asyncio.to_thread(lite_evolution, initial, rounds=rounds, k=self.settings.g2.k,
                                             alpha=self.settings.g2.alpha)  # CPU-bound: off the event loop
            evolved = result.vectors
            links += [{"a": nodes[i].key, "b": nodes[j].key, "kind": "knn", "score": link.score, "t": link.t}
                      for (i, j), link in sorted(result.links.items())]
        elif use_llm and len(nodes) > 1:
            assert self.llm is not None
            evolution_run = await llm_steps.evolve(self.llm, self.embedder, nodes, attributes, initial,
                                                   rounds=rounds, k=self.settings.g2.k, progress=self.progress)
            attributes, evolved = evolution_run.attributes, evolution_run.vectors
            links += evolution_run.links
        lap("evolution")
        await self._write_nodes(nodes, attributes, initial, evolved)
        for batch in batches(links, WRITE_BATCH * 5):
            await self.db.write("content/write_links", rows=list(batch))
        lap("write")
        (row,) = await self.db.read("content/counts", doc_key=doc_key)
        counts = ContentCounts(**row)
        seconds = lap.total
        await mark_complete(self.db, doc_key, "g2", config, seconds=seconds, figures={
            "g2_evolution": evolution, "g2_rounds": rounds, "g2_evolution_seconds": lap.seconds["evolution"],
            **counts.properties()})
        log.info("content graph of %s: %s in %.1fs", doc.name, counts, seconds)
        return ContentGraphReport(doc_key=doc_key, name=doc.name, status="built", config=config,
                                  evolution=evolution, counts=counts, seconds=lap.seconds)

    async def _initial(self, nodes: Sequence[ContentNode], attributes: Sequence[Attributes], *,
                       summary: bool) -> np.ndarray:
        """h(0): Enc(summary ⊕ keywords), or the stored text embedding (embedded here when a node has none)."""
        todo = list(range(len(nodes))) if summary else [i for i, n in enumerate(nodes) if n.embedding is None]
        texts = [attributes[i].embed_text if summary else nodes[i].content for i in todo]
        vectors: dict[int, list[float]] = {}
        with stage(self.progress, "content graph: embedding nodes", len(texts)) as embedding:
            for batch in batches(list(zip(todo, texts, strict=True)), 256):
                found = await self.embedder.embed([t[:EMBED_CHARS] or " " for _, t in batch])
                vectors.update({i: v for (i, _), v in zip(batch, found, strict=True)})
                embedding.advance(len(batch))
        rows = [vectors.get(i, node.embedding) for i, node in enumerate(nodes)]
        matrix = np.array(rows, dtype=np.float64).reshape(len(nodes), self.embedder.dimension)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.where(norms == 0, 1, norms)

    async def _write_nodes(self, nodes: Sequence[ContentNode], attributes: Sequence[Attributes],
                           initial: np.ndarray, evolved: np.ndarray) -> None:
        rows = [{"key": n.key, "order": i, "summary": a.summary,
                 "keywords": [{"key": term_key(k), "name": k, "stem": stem(k)} for k in a.keywords],
                 "text": f"{a.summary}\n{' '.join(a.keywords)}", "initial": initial[i].tolist(),
                 "embedding": evolved[i].tolist()}
                for i, (n, a) in enumerate(zip(nodes, attributes, strict=True))]
        for batch in batches(rows, WRITE_BATCH):
            await self.db.write("content/write_nodes", rows=list(batch))
