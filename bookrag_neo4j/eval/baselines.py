"""The paper's baselines for ``bookrag eval``, on the same index, top-k = 10 for all.

    await ensure_chunks(graph, doc_key, embedder)                   # written once per document
    hits = bm25_chunks(await read_chunks(graph, doc_key), question)  # [Hit(key, pages, score)]

- **bm25**: Okapi BM25 over ~500-token chunks (the document's content blocks in reading order, joined until
  ``CHUNK_WORDS`` words; a chunk's pages are its blocks' pages), IDF over the document's chunks.
- **dense**: the same chunks embedded by the configured embedder, nearest on the ``chunk_embedding`` vector
  index (``cypher/eval/``). Chunks are ``(:Chunk)`` nodes written at the first evaluation of a document and
  deleted with it.
- **layout**: Layout+Vanilla, dense retrieval over the tree's content blocks (``tree_node_embedding``).
- **graphranker**: personalized PageRank over the document's whole entity graph from the question's linked
  entities (no selector), tree nodes scored by the sum of their entities' scores.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from ..graph.client import GraphClient
from ..index.store import batches
from ..llm.embedder import Embedder
from ..llm.reranker import bm25_scores
from ..retrieval import selectors
from ..retrieval.entity_graph import ENTITY_GRAPHS
from ..retrieval.reasoners import pagerank

TOP_K = 10
CHUNK_WORDS = 380  # about 500 tokens of English prose
CHUNKER = f"blocks-{CHUNK_WORDS}w-v1"


@dataclass(frozen=True)
class Hit:
    """A retrieved unit (chunk or tree node) with the pages it covers."""

    key: str
    pages: list[int]
    score: float


def page_span(first: int | None, last: int | None) -> list[int]:
    """The pages from ``first`` to ``last`` (a missing or earlier ``last`` means ``first`` alone)."""
    first = first or 0
    return list(range(first, max(first, last or first) + 1))


def chunk_blocks(blocks: Sequence[dict], *, words: int = CHUNK_WORDS) -> list[tuple[str, list[int]]]:
    """Content blocks (text, page_start, page_end; reading order) joined into chunks of about ``words``
    words; a block longer than that is split. Returns (text, pages) per chunk."""
    chunks: list[tuple[str, list[int]]] = []
    text: list[str] = []
    pages: set[int] = set()
    for block in blocks:
        span = page_span(block["page_start"], block["page_end"])
        tokens = (block["text"] or "").split()
        while tokens:
            room = words - len(text)
            text += tokens[:room]
            tokens = tokens[room:]
            pages.update(span)
            if len(text) >= words:
                chunks.append((" ".join(text), sorted(pages)))
                text, pages = [], set()
    if text:
        chunks.append((" ".join(text), sorted(pages)))
    return chunks


async def ensure_chunks(graph: GraphClient, doc_key: str, embedder: Embedder) -> int:
    """Write the document's evaluation chunks with embeddings unless this chunker's are there; their count."""
    (row,) = await graph.read("eval/chunk_version", doc_key=doc_key)
    if row["chunker"] == CHUNKER and row["chunks"]:
        return row["chunks"]
    await graph.write("eval/delete_chunks", doc_key=doc_key)
    keys = await selectors.filter_nodes(graph, [doc_key])
    chunks = chunk_blocks([b for b in await selectors.fetch_nodes(graph, keys) if b["text"]])
    vectors = await embedder.embed([text for text, _ in chunks]) if chunks else []
    rows = [{"key": hashlib.sha256(f"{doc_key}|{CHUNKER}|{i}".encode()).hexdigest()[:32], "doc_key": doc_key,
             "ordinal": i, "text": text, "pages": pages, "embedding": list(vector), "chunker": CHUNKER}
            for i, ((text, pages), vector) in enumerate(zip(chunks, vectors, strict=True))]
    for batch in batches(rows, 200):
        await graph.write("eval/write_chunks", rows=batch)
    return len(rows)


async def read_chunks(graph: GraphClient, doc_key: str) -> list[dict]:
    """The document's chunks (key, text, pages) in order: BM25's index, read once per document."""
    return await graph.read_rows("eval/chunks", doc_key=doc_key)


def bm25_chunks(chunks: Sequence[dict], question: str, *, top: int = TOP_K) -> list[Hit]:
    scores = bm25_scores(question, [c["text"] for c in chunks])
    order = sorted(range(len(chunks)), key=lambda i: -scores[i])[:top]
    return [Hit(chunks[i]["key"], chunks[i]["pages"], scores[i]) for i in order]


async def dense_chunks(graph: GraphClient, doc_key: str, vector: Sequence[float], *, top: int = TOP_K,
                       k: int = 1000) -> list[Hit]:
    rows = await graph.read_rows("eval/nearest_chunks", doc_key=doc_key, embedding=list(vector), top=top, k=k)
    return [Hit(r["key"], r["pages"], r["score"]) for r in rows]


async def dense_blocks(graph: GraphClient, doc_key: str, vector: Sequence[float], *, top: int = TOP_K) -> list[Hit]:
    keys = await selectors.nearest_nodes(graph, [doc_key], vector, top=top, k=1000)
    return [Hit(n["key"], page_span(n["page_start"], n["page_end"]), 0.0)
            for n in sorted(await selectors.fetch_nodes(graph, keys), key=lambda n: keys.index(n["key"]))]


async def graph_ranker(graph: GraphClient, document: dict, seeds: Sequence[str], *, top: int = TOP_K,
                       damping: float = 0.85) -> list[Hit]:
    """PageRank over the whole document graph (``document``: a ``retrieval/scope_documents`` row)."""
    whole = await ENTITY_GRAPHS.get(graph, document)
    position = {k: i for i, k in enumerate(whole.keys)}
    sources = [position[s] for s in seeds if s in position]
    if not sources:
        return []
    ppr = pagerank(len(whole.keys), whole.source, whole.target, whole.weight, sources, damping=damping)
    scores = {node: float(ppr[entities].sum()) for node, entities in whole.node_entities.items()}
    best = sorted((k for k in scores if scores[k] > 0), key=lambda k: -scores[k])[:top]
    details = {n["key"]: n for n in await selectors.fetch_nodes(graph, best)}
    return [Hit(k, page_span(details[k]["page_start"], details[k]["page_end"]), scores[k])
            for k in best if k in details]
