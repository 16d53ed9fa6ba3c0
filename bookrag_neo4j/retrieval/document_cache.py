"""What a process keeps in memory per document: read once, then served until the data it was read from changes
(the version: a re-indexed tree, a rebuilt layer) or it is among the least recently used.

    BLOCKS: DocumentCache[DocumentBlocks] = sized(DocumentCache())  # sized: keep_documents resizes it
    blocks = await BLOCKS.get(db, doc, doc.indexed_at, read)   # read() runs once per tree version
    LAYER = sized(DocumentCache(per_document=4))                   # several values a document
    rows = await LAYER.get(db, doc, build, read, name="layout/row_vectors")
    keep_documents(100)                                            # every such cache, for 100 documents

A slot is the server, the database, the document and the value's ``name``; a new version replaces the old one.
Every cache is sized in documents (``BOOKRAG_CACHE_DOCUMENTS``, 64; the Retriever applies it). What is kept is
what a question would otherwise read again whole (texts, postings, table rows); no embedding is kept: similarities
are computed in Neo4j.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Generic, Protocol, TypeVar

from ..db.client import Neo4jClient
from ..library.documents import Document

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
        self._reading: dict[tuple[tuple[str, str | None, str, str], str | None], asyncio.Future[T]] = {}

    async def get(self, db: Neo4jClient, doc: Document, version: str | None, read: Callable[[], Awaitable[T]],
                  *, name: str = "") -> T:
        """The value kept for ``doc`` and ``name`` at ``version``, or what ``read`` returns, then kept. Steps of
        a plan that run side by side and miss at once share one read."""
        slot = (db.conn.uri, db.conn.database, doc.key, name)
        kept = self._kept.get(slot)
        if kept is None or kept[0] != version:
            kept = (version, await shared(self._reading, (slot, version), read))
            self._kept[slot] = kept
        self._kept.move_to_end(slot)
        self._trim()
        return kept[1]

    def keep(self, documents: int) -> None:
        """Keep values for ``documents`` documents from now on (the least recently used beyond them go at once)."""
        self.max_entries = documents * self.per_document
        self._trim()

    def _trim(self) -> None:
        while len(self._kept) > self.max_entries:
            self._kept.popitem(last=False)


K = TypeVar("K")


async def shared(reading: dict[K, asyncio.Future[T]], key: K, read: Callable[[], Awaitable[T]]) -> T:
    """What ``read`` returns, read once for every caller that asks for ``key`` while it runs (``reading`` holds
    the reads under way). A caller that is cancelled leaves the read to the others."""
    if (pending := reading.get(key)) is None or pending.get_loop() is not asyncio.get_running_loop():
        pending = reading[key] = asyncio.ensure_future(read())
        pending.add_done_callback(lambda done: reading.pop(key, None) if reading.get(key) is done else None)
    return await asyncio.shield(pending)
