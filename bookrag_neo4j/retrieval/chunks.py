"""The chunk layer of the paper's chunk baselines (``bm25``, ``dense``): ~500-token chunks of a document.

    count = await ensure_chunks(graph, doc_key, embedder)     # written once per document and chunker
    chunks = await read_chunks(graph, doc_key)                # [Chunk(key, text, pages)], cached

A chunk joins the document's content blocks in reading order until ``CHUNK_WORDS`` words (a longer block is
split); its pages are its blocks' pages. Chunks are ``(:Chunk)`` nodes with an embedding on the
``chunk_embedding`` vector index, written the first time a chunk method reads the document (``MERGE`` on
content-hash keys, so two writers write the same nodes) and deleted with the document
(``cypher/baselines/``). The layer's constraint and indexes are not in the BookIndex schema: the first write
applies ``cypher/baselines/schema.cypher``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from ..graph.batching import batches
from ..graph.client import GraphClient
from ..graph.schema import apply_schema
from ..keys import chunk_key
from ..llm.embedder import Embedder
from . import selectors

CHUNK_WORDS = 380  # about 500 tokens of English prose
CHUNKER = f"blocks-{CHUNK_WORDS}w-v1"


@dataclass(frozen=True)
class Chunk:
    key: str
    text: str
    pages: list[int]


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
    """Write the document's chunks with embeddings unless this chunker's are there; their count."""
    (row,) = await graph.read("baselines/chunk_version", doc_key=doc_key)
    if row["chunker"] == CHUNKER and row["chunks"]:
        return row["chunks"]
    await apply_schema(graph, dimensions=embedder.dimension, name="baselines/schema")  # the layer's, once
    await graph.write("baselines/delete_chunks", doc_key=doc_key)
    keys = await selectors.filter_nodes(graph, [doc_key])
    chunks = chunk_blocks([b for b in await selectors.fetch_nodes(graph, keys) if b["text"]])
    vectors = await embedder.embed([text for text, _ in chunks]) if chunks else []
    rows = [{"key": chunk_key(doc_key, CHUNKER, i), "doc_key": doc_key,
             "ordinal": i, "text": text, "pages": pages, "embedding": list(vector), "chunker": CHUNKER}
            for i, ((text, pages), vector) in enumerate(zip(chunks, vectors, strict=True))]
    for batch in batches(rows, 200):
        await graph.write("baselines/write_chunks", rows=batch)
    return len(rows)


_READ: OrderedDict[tuple[str, str, int], list[Chunk]] = OrderedDict()  # BM25's corpus, read once a document
_KEEP = 32


async def read_chunks(graph: GraphClient, doc_key: str, count: int) -> list[Chunk]:
    """The document's ``count`` chunks in order (kept in memory for the last few documents read)."""
    slot = (graph.conn.uri, doc_key, count)
    if slot not in _READ:
        _READ[slot] = [Chunk(r["key"], r["text"], r["pages"])
                       for r in await graph.read_rows("baselines/chunks", doc_key=doc_key)]
        while len(_READ) > _KEEP:
            _READ.popitem(last=False)
    _READ.move_to_end(slot)
    return _READ[slot]


async def nearest_chunks(graph: GraphClient, doc_key: str, vector: Sequence[float], *, top: int,
                         k: int = 1000) -> list[tuple[str, float]]:
    """The document's ``top`` chunks nearest to ``vector`` on the chunk vector index: (key, score)."""
    rows = await graph.read_rows("baselines/nearest_chunks", doc_key=doc_key, embedding=list(vector), top=top, k=k)
    return [(r["key"], r["score"]) for r in rows]
