"""What a process keeps in memory per document: read once, then served until the data it was read from changes
(the version: a re-indexed tree, a rebuilt layer) or it is among the least recently used.

    BLOCKS: DocumentCache[DocumentBlocks] = sized(DocumentCache())  # sized: keep_documents resizes it
    blocks = await BLOCKS.get(graph, doc, doc.indexed_at, read)   # read() runs once per tree version
    LAYER = sized(DocumentCache(per_document=4))                   # several values a document
    rows = await LAYER.get(graph, doc, build, read, name="layout/row_vectors")
    keep_documents(100)                                            # every such cache, for 100 documents

A slot is the server, the database, the document and the value's ``name``; a new version replaces the old one.
Every cache is sized in documents (``BOOKRAG_CACHE_DOCUMENTS``, 64; the Retriever applies it): a question over
the whole library reads every document's blocks, entity graph and tables, and a cache smaller than the library
read them all again for each question (38 documents against 32 kept blocks and 16 entity graphs: 60 s a
question, warm; kept, 146 ms without model inference; the 38 documents' copies and the models held 1.7 GB).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Generic, Protocol, TypeVar

from ..graph.client import GraphClient
from .documents import Document

T = TypeVar("T")
S = TypeVar("S", bound="Sized")

DOCUMENTS = 64  # the default of BOOKRAG_CACHE_DOCUMENTS


class Sized(Protocol):
    def keep(self, documents: int) -> None: ...


_SIZED: list[Sized] = []


def sized(cache: S) -> S:
    """Register a per-document cache with :func:`keep_documents` (module-level caches, made once)."""
    _SIZED.append(cache)
    return cache


def keep_documents(documents: int) -> None:
    """Size every per-document cache of the process for ``documents`` documents."""
    for cache in _SIZED:
        cache.keep(documents)


class DocumentCache(Generic[T]):
    """Values per document, version and name: ``per_document`` values for each of ``documents`` documents at
    most, least recently used out."""

    def __init__(self, documents: int = DOCUMENTS, *, per_document: int = 1) -> None:
        self.per_document = per_document
        self.max_entries = documents * per_document
        self._kept: OrderedDict[tuple[str, str | None, str, str], tuple[str | None, T]] = OrderedDict()

    async def get(self, graph: GraphClient, doc: Document, version: str | None, read: Callable[[], Awaitable[T]],
                  *, name: str = "") -> T:
        """The value kept for ``doc`` and ``name`` at ``version``, or what ``read`` returns, then kept."""
        slot = (graph.conn.uri, graph.conn.database, doc.key, name)
        kept = self._kept.get(slot)
        if kept is None or kept[0] != version:
            kept = (version, await read())
            self._kept[slot] = kept
        self._kept.move_to_end(slot)
        while len(self._kept) > self.max_entries:
            self._kept.popitem(last=False)
        return kept[1]

    def keep(self, documents: int) -> None:
        self.max_entries = documents * self.per_document
