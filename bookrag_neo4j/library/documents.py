"""The ``(:Document)`` nodes of a library as typed models: what each records, how far its layers are built, lookups.

    async with Neo4jClient(conn) as db:
        doc = await find_document(db, "R-intro.pdf")        # by key, key prefix (6+) or file name
        doc.key, doc.pages, doc.tree is TreeStatus.COMPLETE, doc.embeddings, doc.graph is GraphStatus.COMPLETE

A document is built in layers, each recording its state on the Document node: the tree (``status``: 'writing', then
'complete'), the block embeddings (``embeddings_status``: 'embedding', then 'complete' with the ``embedder``; the embed
stage resumes from the blocks without one), the knowledge graph (``graph_status``: 'building', then 'complete'; absent
until a build starts) and SuperRAG's layout layer (``layout_status``, with its ``layout_config`` and counts). A failed
run records why (``error``, ``failed_at``) until one succeeds: the document's status is ``failed`` in every door.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..db.client import Neo4jClient
from ..errors import DocumentNotFoundError
from .cards import DocumentCard


class TreeStatus(StrEnum):
    WRITING = "writing"
    COMPLETE = "complete"


class EmbeddingsStatus(StrEnum):
    EMBEDDING = "embedding"
    COMPLETE = "complete"


class GraphStatus(StrEnum):
    BUILDING = "building"
    COMPLETE = "complete"


class LayoutStatus(StrEnum):
    BUILDING = "building"
    COMPLETE = "complete"


class Counts(BaseModel):
    """What a layer's build made; the Document node stores each count as ``<prefix>_<name>``."""

    prefix: ClassVar[str] = ""

    def properties(self) -> dict[str, int]:
        """As the Document node stores them (of a subclass too: only these counts)."""
        counts: type[Counts] = next(c for c in type(self).__mro__ if "prefix" in vars(c))  # the class naming the layer
        return {f"{self.prefix}_{name}": getattr(self, name) for name in counts.model_fields}


class LayoutCounts(Counts):
    """What a layout build made (stored on the Document as ``layout_<name>``)."""

    prefix: ClassVar[str] = "layout"

    toc_entries: int = 0
    master_sections: int = 0
    passages: int = 0
    table_rows: int = 0
    refers_to: int = 0
    keyword_links: int = 0
    labelled_pages: int = 0
    similar: int = 0


class GraphCounts(Counts):
    """What a knowledge-graph build made (stored on the Document as ``graph_<name>``)."""

    prefix: ClassVar[str] = "graph"

    entities: int = 0
    relations: int = 0
    contained_in: int = 0
    gt_links: int = 0
    same_as: int = 0
    llm_failed: int = 0  # tree nodes whose LLM extraction failed (structural entities only; the next build retries)


class ContentStatus(StrEnum):
    BUILDING = "building"
    COMPLETE = "complete"


class ContentCounts(Counts):
    """What a content-graph build made (stored on the Document as ``g2_<name>``)."""

    prefix: ClassVar[str] = "g2"

    nodes: int = 0
    window_links: int = 0
    knn_links: int = 0
    llm_links: int = 0


class Document(BaseModel):
    """One indexed document as its node stores it (field names are the property names but for the layers'
    states)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True, frozen=True)

    key: str
    name: str = ""
    path: str = ""
    title: str = ""
    pages: int | None = None
    parser: str = ""
    heading_source: str = ""
    content_hash: str = ""
    indexed_at: str | None = None
    warnings: list[str] = Field(default_factory=list)
    error: str | None = None  # why the last indexing run failed (cleared by one that succeeds)
    failed_at: str | None = None

    # the tree: written by bookrag_neo4j.index.store, figures of the whole tree stage by the index pipeline
    tree: TreeStatus = Field(TreeStatus.WRITING, validation_alias="status")
    tree_nodes: int | None = None
    index_seconds: float | None = None
    index_llm_calls: int | None = None
    index_tokens: int | None = None

    # the block embeddings: written by the index pipeline's embed stage (None: never run on this document)
    embeddings: EmbeddingsStatus | None = Field(None, validation_alias="embeddings_status")
    embedder: str | None = None

    # the knowledge graph: written by bookrag_neo4j.kg.build
    graph: GraphStatus | None = Field(None, validation_alias="graph_status")
    graph_config: str | None = None
    graph_built_at: str | None = None
    graph_seconds: float | None = None
    graph_llm_calls: int | None = None
    graph_tokens: int | None = None
    graph_counts: GraphCounts = Field(default_factory=GraphCounts)
    graph_er_merges: int = 0

    # the layout layer: written by bookrag_neo4j.layout.build
    layout: LayoutStatus | None = Field(None, validation_alias="layout_status")
    layout_config: str | None = None
    layout_built_at: str | None = None
    layout_seconds: float | None = None
    layout_counts: LayoutCounts = Field(default_factory=LayoutCounts)

    # G²-Reader's content graph: written by bookrag_neo4j.content.build
    g2: ContentStatus | None = Field(None, validation_alias="g2_status")
    g2_config: str | None = None
    g2_built_at: str | None = None
    g2_seconds: float | None = None
    g2_evolution: str | None = None
    g2_rounds: int | None = None
    g2_evolution_seconds: float | None = None
    g2_counts: ContentCounts = Field(default_factory=ContentCounts)

    # what the document is (bookrag_neo4j.library.cards): read at index time, edited by `bookrag docs set`
    card: DocumentCard | None = None

    @model_validator(mode="before")
    @classmethod
    def _nest_counts(cls, node: Any) -> Any:
        if isinstance(node, dict):
            if "card" not in node:
                node = {**node, "card": DocumentCard.of(node)}
            for prefix, model in (("graph", GraphCounts), ("layout", LayoutCounts), ("g2", ContentCounts)):
                if f"{prefix}_counts" not in node:
                    counts = {n: node[f"{prefix}_{n}"] for n in model.model_fields if f"{prefix}_{n}" in node}
                    node = {**node, f"{prefix}_counts": counts}
        return node

    @property
    def graph_version(self) -> str | None:
        """Names one build of the knowledge graph (None until it is complete): in-memory copies of the graph
        (:mod:`bookrag_neo4j.retrieval.entity_graph`) are kept while it stays the same."""
        if self.graph is not GraphStatus.COMPLETE:
            return None
        c = self.graph_counts
        return f"{self.graph_config}|{self.graph_built_at or ''}|{c.entities}|{c.relations}|{c.gt_links}"

    def layer_states(self) -> dict[str, str | None]:
        """Each layer's state: ``complete``, in progress (``writing``, ``embedding``, ``building``: an
        interrupted build stays there until it is run again), or ``None`` (never built)."""
        return {"tree": self.tree.value, "embeddings": _value(self.embeddings), "graph": _value(self.graph),
                "layout": _value(self.layout), "content_graph": _value(self.g2)}

    @property
    def partial(self) -> list[str]:
        """The layers whose build started and did not complete (a killed run, or one still going)."""
        return [layer for layer, state in self.layer_states().items() if state not in (None, "complete")]

    @property
    def status(self) -> str:
        """The document's one status, the same in every door (CLI, SDK, web app, MCP): ``failed`` when its last
        indexing run failed (:attr:`error` says why), else ``complete`` only when no layer's build is partial,
        else ``partial``."""
        if self.error is not None:
            return "failed"
        return "partial" if self.partial else "complete"

    def listing(self) -> dict[str, Any]:
        """The row ``bookrag docs list`` shows, with :attr:`status`."""
        card = self.card.model_dump(exclude={"source", "edited"}) if self.card else None
        return {"key": self.key, "name": self.name, "path": self.path, "title": self.title, "pages": self.pages,
                "status": self.status, "error": self.error, **self.layer_states(),
                "graph_llm_failed": self.graph_counts.llm_failed,
                "heading_source": self.heading_source, "tree_nodes": self.tree_nodes, "indexed_at": self.indexed_at,
                "card": card}


def _value(state: StrEnum | None) -> str | None:
    return None if state is None else state.value


async def match_documents(db: Neo4jClient, name_or_key: str) -> list[Document]:
    """Documents whose key is ``name_or_key``, starts with it (6+ characters), or whose file name it is;
    the most recently indexed first."""
    rows = await db.read("library/find_document", doc=name_or_key)
    return [Document.model_validate(r["document"]) for r in rows]


async def get_document(db: Neo4jClient, key: str) -> Document | None:
    """The document with exactly this key, or ``None``."""
    return next((d for d in await match_documents(db, key) if d.key == key), None)


async def find_document(db: Neo4jClient, name_or_key: str) -> Document:
    """The document with this key, key prefix (6+ characters) or file name; several documents of that name
    (files from different folders) or key prefix are an error that lists their keys."""
    found = await match_documents(db, name_or_key)
    if not found:
        raise DocumentNotFoundError(f"no indexed document {name_or_key!r}: see `bookrag docs list`")
    exact = [d for d in found if d.key == name_or_key]
    if exact:
        return exact[0]
    named = [d for d in found if d.name == name_or_key] or found
    keys = sorted({d.key for d in named})
    if len(keys) > 1:
        raise DocumentNotFoundError(
            f"{name_or_key!r} matches several documents ({', '.join(k[:16] for k in keys)}): give more of the key")
    return named[0]


async def list_documents(db: Neo4jClient, keys: Sequence[str] | None = None) -> list[Document]:
    """The documents with these keys, or (``None``) every document; by file name."""
    rows = await db.read_rows("library/list_documents", doc_keys=None if keys is None else list(keys))
    return [Document.model_validate(r) for r in rows]
