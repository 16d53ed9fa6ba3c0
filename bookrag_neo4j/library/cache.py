"""What a process keeps in memory per document: read once, then served until the data it was read from changes
(the version: a re-indexed tree, a rebuilt layer) or it is among the least recently used.

    BLOCKS: DocumentCache[DocumentBlocks] = DocumentCache(max_entries=32)
    blocks = await BLOCKS.get(graph, doc, doc.indexed_at, read)   # read() runs once per tree version
    rows = await LAYER.get(graph, doc, build, read, name="layout/row_vectors")   # several values a document

A slot is the server, the database, the document and the value's ``name``; a new version replaces the old one.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

from ..graph.client import GraphClient
from .documents import Document

T = TypeVar("T")


class DocumentCache(Generic[T]):
    """Values per document, version and name: at most ``max_entries``, least recently used out."""

    def __init__(self, max_entries: int = 32) -> None:
        self.max_entries = max_entries
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
