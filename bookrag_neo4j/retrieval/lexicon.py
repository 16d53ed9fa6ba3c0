"""Whole-document statistics for Text_Reasoning's BM25: each document's block count, mean block length and
document frequency of every term, read once per process and document.

    stats = await LEXICONS.get(graph, doc)              # one query the first time, then kept
    scores = bm25_scores(question, texts, stats=stats)  # IDF and length norm of the document, not the candidates

BM25 over the selected candidates alone takes its IDF from them: a term that fills the selected section
looks rare, and the mean length is the selection's. Here IDF and the mean length come from every content
block of the document, as ``node_text`` shows them to the reranker, and the candidates' term counts from
their own texts at question time. A document's statistics depend on that document only (not on the library,
unlike a Lucene index's, whose IDF spans every document in it). The copy is keyed by the document's
``indexed_at`` (a re-indexed tree is read again); at most ``max_documents`` are kept (least recently used out).
"""

from __future__ import annotations

import logging
from collections import Counter, OrderedDict

from ..graph.client import GraphClient
from ..library.documents import Document
from ..llm.reranker import LexicalStats, tokens

log = logging.getLogger(__name__)


class LexiconCache:
    """Documents' :class:`LexicalStats` by document key and tree version."""

    def __init__(self, max_documents: int = 32) -> None:
        self.max_documents = max_documents
        self._kept: OrderedDict[tuple[str, str, str], tuple[str | None, LexicalStats]] = OrderedDict()

    async def get(self, graph: GraphClient, doc: Document, *, max_chars: int) -> LexicalStats:
        slot = (graph.conn.uri, graph.conn.database, doc.key)
        kept = self._kept.get(slot)
        if kept is not None and kept[0] == doc.indexed_at:
            self._kept.move_to_end(slot)
            return kept[1]
        texts = await graph.read_rows("retrieval/block_texts", doc_key=doc.key, max_chars=max_chars)
        df: Counter[str] = Counter()
        total = 0
        for text in texts:
            words = tokens(text)
            total += len(words)
            df.update(set(words))
        stats = LexicalStats(blocks=len(texts), average_length=total / len(texts) if texts else 1.0,
                             document_frequency=dict(df))
        log.debug("read the lexicon of %s: %d blocks, %d terms", doc.key, stats.blocks, len(df))
        self._kept[slot] = (doc.indexed_at, stats)
        self._kept.move_to_end(slot)
        while len(self._kept) > self.max_documents:
            self._kept.popitem(last=False)
        return stats


LEXICONS = LexiconCache()  # shared by every agent of the process
