"""Each document's content blocks as the question path reads them whole: keys, unit-length embeddings and BM25
statistics (block count, mean length, document frequency of every term), read once per process and document.

    blocks = await BLOCKS.get(graph, doc, max_chars=2000)   # one query the first time, then kept
    keys = blocks.nearest(question_vector, top=3)             # exact cosine over the whole document
    scores = bm25_scores(question, texts, stats=blocks.stats) # IDF and length norm of the document

Both serve one rule: a lookup scoped to a document is exact over that document, so its answer does not depend
on the library around it (a vector index's top k spans the whole library; a Lucene index's IDF too).

- **Nearest blocks** (the offline Select_by_Section): a matrix product over the document's block embeddings,
  under a millisecond for PepsiCo's 8,650 blocks; the same in Cypher (``vector.similarity.cosine`` over every
  block) took 135 ms a question.
- **BM25 statistics** (Text_Reasoning): BM25 over the selected candidates alone takes its IDF from them: a
  term that fills the selected section looks rare, and the mean length is the selection's. Here IDF and the
  mean length come from every content block of the document, as ``node_text`` shows them to the reranker,
  and the candidates' term counts from their own texts at question time.

The copy is keyed by the document's ``indexed_at`` (a re-indexed tree is read again); at most
``max_documents`` are kept (least recently used out).
"""

from __future__ import annotations

import logging
from collections import Counter, OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..graph.client import GraphClient
from ..library.documents import Document
from ..llm.reranker import LexicalStats, tokens

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DocumentBlocks:
    """One document's content blocks: keys, unit-length embeddings (zero rows where none) and BM25 statistics."""

    keys: list[str]
    vectors: np.ndarray
    stats: LexicalStats

    def nearest(self, vector: Sequence[float], top: int) -> list[tuple[str, float]]:
        """The ``top`` blocks by cosine similarity to ``vector``, as (key, (1 + cos) / 2), best first."""
        if not self.keys or self.vectors.shape[1] != len(vector):
            return []
        query = np.asarray(vector, dtype=np.float32)
        scores = (1.0 + self.vectors @ (query / (np.linalg.norm(query) or 1.0))) / 2.0
        scores[~self.vectors.any(axis=1)] = -1.0  # blocks without an embedding come last
        best = np.argsort(-scores, kind="stable")[:top]
        return [(self.keys[i], float(scores[i])) for i in best if scores[i] >= 0]


def read_blocks(rows: Sequence[dict]) -> DocumentBlocks:
    """From ``retrieval/document_blocks`` rows: key, text, embedding."""
    df: Counter[str] = Counter()
    total = 0
    for row in rows:
        words = tokens(row["text"] or "")
        total += len(words)
        df.update(set(words))
    dimension = next((len(r["embedding"]) for r in rows if r["embedding"]), 0)
    vectors = np.array([r["embedding"] or [0.0] * dimension for r in rows], dtype=np.float32).reshape(len(rows),
                                                                                                      dimension)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    stats = LexicalStats(blocks=len(rows), average_length=total / len(rows) if rows else 1.0,
                         document_frequency=dict(df))
    return DocumentBlocks(keys=[r["key"] for r in rows], vectors=vectors / np.where(norms > 0, norms, 1.0),
                          stats=stats)


class BlockCache:
    """Documents' :class:`DocumentBlocks` by document key and tree version."""

    def __init__(self, max_documents: int = 32) -> None:
        self.max_documents = max_documents
        self._kept: OrderedDict[tuple[str, str, str], tuple[str | None, DocumentBlocks]] = OrderedDict()

    async def get(self, graph: GraphClient, doc: Document, *, max_chars: int) -> DocumentBlocks:
        slot = (graph.conn.uri, graph.conn.database, doc.key)
        kept = self._kept.get(slot)
        if kept is not None and kept[0] == doc.indexed_at:
            self._kept.move_to_end(slot)
            return kept[1]
        blocks = read_blocks(await graph.read_rows("retrieval/document_blocks", doc_key=doc.key,
                                                   max_chars=max_chars))
        log.debug("read the blocks of %s: %d blocks, %d terms", doc.key, len(blocks.keys),
                  len(blocks.stats.document_frequency))
        self._kept[slot] = (doc.indexed_at, blocks)
        self._kept.move_to_end(slot)
        while len(self._kept) > self.max_documents:
            self._kept.popitem(last=False)
        return blocks


BLOCKS = BlockCache()  # shared by every agent of the process
