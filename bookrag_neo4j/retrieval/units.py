"""SuperRAG's unit search at question time: exact per-document vector search over the layout layer's passages and
table rows, and the passages' texts for BM25 within a document.

    keys, scores = await nearest_units(db, doc, question_vector, kind="passage", top=20)
    keys, texts = await passage_texts(db, doc)
    rows = await table_rows(db, doc)      # each table's rows: best row's BM25 and similarity per table

Where the server has bookrag-neo4j's plugin (``db/vectors.use_plugin``) the units and table rows are scored there
(``cypher/plugin/``) and no embedding is read into the client. Else a document's unit embeddings (and texts) are read
once per layout build (``layout_config`` and ``layout_built_at`` name it) and kept in memory for the last few
documents; a question is then one matrix product. Every document is
searched on its own, so its hits never depend on what else the library holds (a vector index's library-wide
top-k, filtered to one document afterwards, loses them as the library grows); exact, where the index is
approximate.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from ..db.client import Neo4jClient
from ..db.vectors import use_plugin
from ..library.documents import Document
from ..text.lexical import LexicalStats, Postings, idf, tokens
from .document_cache import DocumentCache, sized

Kind = Literal["passage", "row"]
QUERIES = {"passage": "layout/passage_vectors", "row": "layout/row_vectors"}
LABELS = {"passage": "Passage", "row": "TableChunk"}
_ROWS_SCORED: dict[tuple[str, str, tuple[float, ...]], dict[str, float]] = {}  # row_similarities' last answers
LAYER: DocumentCache[tuple[list[str], Any]] = sized(DocumentCache(per_document=8))  # up to 7 values a document


async def read_per_build(db: Neo4jClient, doc: Document, query: str,
                         convert: Callable[[list[dict]], Any], *, build: str | None = None,
                         view: str = "") -> tuple[list[str], Any]:
    """The keys of the document's rows of ``query`` and ``convert(rows)``, read once per build of the layer
    (``build``: its name; default the layout layer's) and kept for the last few documents (the in-memory readers
    share it: vectors, passage texts, the ToC, the content graph's embeddings). ``view`` names ``convert`` where
    one query is kept under two conversions."""
    async def read() -> tuple[list[str], Any]:
        rows = await db.read_rows(query, doc_key=doc.key)
        return [r["key"] for r in rows], convert(rows)

    return await LAYER.get(db, doc, build or f"{doc.layout_config}|{doc.layout_built_at}", read,
                           name=query + view)


def _matrix(rows: list[dict]) -> np.ndarray:
    return np.array([r["embedding"] for r in rows], dtype=np.float32).reshape(len(rows), -1) if rows \
        else np.zeros((0, 1), dtype=np.float32)


async def unit_vectors(db: Neo4jClient, doc: Document, kind: Kind) -> tuple[list[str], np.ndarray]:
    """The document's unit keys and their embeddings (one row each), read once per layout build."""
    return await read_per_build(db, doc, QUERIES[kind], _matrix)


async def passage_texts(db: Neo4jClient, doc: Document) -> tuple[list[str], list[str]]:
    """The document's passage keys and texts in reading order, read once per layout build."""
    return await read_per_build(db, doc, "layout/passage_texts", lambda rows: [r["text"] or "" for r in rows])


async def passage_lexicon(db: Neo4jClient, doc: Document) -> LexicalStats:
    """BM25 statistics over the document's passages as the reranker reads them (heading path and text), read
    once per layout build."""
    _, stats = await read_per_build(db, doc, "layout/passage_texts", view="|stats", convert=lambda rows: (
        LexicalStats.of([f"{r['heading'] or ''}\n{r['text'] or ''}".strip() for r in rows])))
    return stats


@dataclass(frozen=True)
class TableRows:
    """A document's table rows (the layout layer's header + row), by table: unit embeddings (zero rows where
    none), and term postings and lengths for BM25, so that scoring the rows of hundreds of tables is a few array
    operations a question."""

    spans: dict[str, tuple[int, int]]  # table key -> its rows [start, end)
    headings: dict[str, str]  # table key -> its rows' heading: section path > caption or lead-in
    vectors: np.ndarray
    lexicon: Postings  # of the rows' texts (without their heading)
    last: dict[tuple, dict[tuple[str, str], tuple[float, float | None]]] = field(
        default_factory=dict, repr=False, compare=False)  # the last question's results, by (table, head)

    def best(self, tables: Sequence[str], heads: Sequence[str], question: str, vector: Sequence[float],
             stats: LexicalStats, *, k1: float = 1.5, b: float = 0.75,
             scored: Mapping[str, float] | None = None) -> tuple[list[float], list[float | None]]:
        """For each of ``tables`` (all with rows here), its best row's BM25, the row read after the table's
        ``head`` (what :func:`~bookrag_neo4j.lexical.bm25_scores` gives for ``head + "\\n" + row`` with
        ``stats``), and its best row's similarity to ``vector``, (1 + cos) / 2 (None where no row is embedded;
        ``scored``: the server's, :func:`row_similarities`). The last question's results are kept: Fetch's first
        stage and Text_Reasoning ask for the same tables."""
        asked = (question, tuple(vector), id(stats), k1, b)
        if asked not in self.last:
            self.last.clear()
        kept = self.last.setdefault(asked, {})
        missing = [(t, h) for t, h in zip(tables, heads, strict=True) if (t, h) not in kept]
        if missing:
            lexical, similarity = self._best([t for t, _ in missing], [h for _, h in missing], question, vector,
                                             stats, k1=k1, b=b, scored=scored)
            kept.update(zip(missing, zip(lexical, similarity, strict=True), strict=True))
        found = [kept[(t, h)] for t, h in zip(tables, heads, strict=True)]
        return [lexical for lexical, _ in found], [similarity for _, similarity in found]

    def _best(self, tables: Sequence[str], heads: Sequence[str], question: str, vector: Sequence[float],
              stats: LexicalStats, *, k1: float, b: float,
              scored: Mapping[str, float] | None) -> tuple[list[float], list[float | None]]:
        spans = [self.spans[t] for t in tables]
        rows = np.concatenate([np.arange(a, z) for a, z in spans])
        owner = np.repeat(np.arange(len(tables)), [z - a for a, z in spans])
        offsets = np.cumsum([0, *(z - a for a, z in spans)])[:-1]
        terms = tokens(question)
        head_counts = [Counter(tokens(h)) for h in heads]
        length = self.lexicon.lengths[rows] + np.array([sum(c.values()) for c in head_counts], dtype=np.float64)[owner]
        norm = k1 * (1 - b + b * length / (stats.average_length or 1.0))
        position = np.full(len(self.lexicon.lengths), -1)
        position[rows] = np.arange(len(rows))
        lexical = np.zeros(len(rows))
        for term in terms:
            tf = np.array([c.get(term, 0) for c in head_counts], dtype=np.float64)[owner]
            if (found := self.lexicon.terms.get(term)) is not None:
                at = position[found[0]]
                tf[at[at >= 0]] += found[1][at >= 0]
            lexical += np.where(tf > 0, idf(stats, term) * tf * (k1 + 1) / (tf + norm), 0.0)
        best_lexical = np.maximum.reduceat(lexical, offsets).tolist()
        if scored is not None:
            return best_lexical, [scored.get(t) for t in tables]
        if self.vectors.shape[1] != len(vector):
            return best_lexical, [None] * len(tables)
        query = np.asarray(vector, dtype=np.float32)
        similarity = (1.0 + self.vectors[rows] @ (query / (np.linalg.norm(query) or 1.0))) / 2.0
        similarity[~self.vectors[rows].any(axis=1)] = -np.inf
        best = np.maximum.reduceat(similarity, offsets)
        return best_lexical, [float(s) if np.isfinite(s) else None for s in best]


def _table_rows(rows: list[dict]) -> TableRows:
    spans: dict[str, tuple[int, int]] = {}
    headings: dict[str, str] = {}
    for i, row in enumerate(rows):
        start, _ = spans.get(row["table"], (i, i))
        spans[row["table"]] = (start, i + 1)
        headings.setdefault(row["table"], row["heading"])
    dimension = next((len(r["embedding"]) for r in rows if r["embedding"]), 0)
    vectors = np.array([r["embedding"] or [0.0] * dimension for r in rows], dtype=np.float32).reshape(len(rows),
                                                                                                      dimension)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return TableRows(spans=spans, headings=headings, vectors=vectors / np.where(norms > 0, norms, 1.0),
                     lexicon=Postings.of([row["text"] for row in rows]))


async def table_rows(db: Neo4jClient, doc: Document, *, engine: str = "auto") -> TableRows:
    """The document's :class:`TableRows`, read once per layout build (no tables without the layout layer); without
    the embeddings where the plugin scores the rows (:func:`row_similarities`)."""
    query = "layout/table_row_texts" if await use_plugin(db, engine=engine) else "layout/table_rows"
    _, tables = await read_per_build(db, doc, query, _table_rows)
    return tables


async def row_similarities(db: Neo4jClient, doc: Document, tables: TableRows, vector: Sequence[float], *,
                           engine: str = "auto") -> dict[str, float] | None:
    """Each of the document's tables' best row similarity to ``vector``, (1 + cos) / 2, scored in the server by the
    plugin (``TableRows.best``'s ``scored``); None where the client scores them. The last few questions' are kept:
    Select's first stage and Text_Reasoning ask for the same document."""
    if not await use_plugin(db, engine=engine):
        return None
    asked = (doc.key, f"{doc.layout_config}|{doc.layout_built_at}", tuple(vector))
    if (found := _ROWS_SCORED.get(asked)) is None:
        found = dict(await db.read_rows("plugin/best_rows", doc_key=doc.key, tables=list(tables.spans),
                                           embedding=list(map(float, vector))))
        _ROWS_SCORED[asked] = found
        while len(_ROWS_SCORED) > 16:
            _ROWS_SCORED.pop(next(iter(_ROWS_SCORED)))
    return found


async def nearest_units(db: Neo4jClient, doc: Document, vector: Sequence[float], *, kind: Kind,
                        top: int, engine: str = "auto") -> list[tuple[str, float]]:
    """The document's ``top`` units of ``kind`` by cosine to ``vector`` (unit vectors), best first: in the plugin
    where the server has it (``engine``), else on the embeddings read once per layout build."""
    if await use_plugin(db, engine=engine):
        rows = await db.read_rows("plugin/nearest_units", label=LABELS[kind], doc_key=doc.key, top=top,
                                     embedding=list(map(float, vector)))
        return [(key, 2.0 * score - 1.0) for key, score in rows]
    keys, matrix = await unit_vectors(db, doc, kind)
    if not keys:
        return []
    scores = matrix @ np.asarray(vector, dtype=np.float32)
    best = np.argsort(-scores, kind="stable")[:top]
    return [(keys[i], float(scores[i])) for i in best]
