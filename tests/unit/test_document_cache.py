"""The per-document cache the in-memory readers share: one read per document, version and name; a slot per
server and database; least recently used out."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from bookrag_neo4j.library.documents import Document
from bookrag_neo4j.retrieval.document_cache import DOCUMENTS, DocumentCache, keep_documents, shared, sized


def server(database: str) -> SimpleNamespace:
    return SimpleNamespace(conn=SimpleNamespace(uri="bolt://localhost:7687", database=database))


async def test_a_value_is_read_once_per_document_version_name_and_database() -> None:
    cache: DocumentCache[str] = DocumentCache(3)
    reads: list[str] = []

    def reader(value: str):
        async def read() -> str:
            reads.append(value)
            return value
        return read

    a, b = Document(key="a"), Document(key="b")
    neo4j, other = server("neo4j"), server("other")
    assert await cache.get(neo4j, a, "v1", reader("a1")) == "a1"
    assert await cache.get(neo4j, a, "v1", reader("never")) == "a1"  # kept
    assert await cache.get(neo4j, a, "v1", reader("a1-rows"), name="rows") == "a1-rows"  # another value
    assert await cache.get(other, a, "v1", reader("a1-other")) == "a1-other"  # another database's document
    assert await cache.get(neo4j, a, "v2", reader("a2")) == "a2"  # a new version replaces the old
    assert await cache.get(neo4j, a, "v2", reader("never")) == "a2"
    assert reads == ["a1", "a1-rows", "a1-other", "a2"]
    assert await cache.get(neo4j, b, "v1", reader("b1")) == "b1"  # a fourth slot: the least recently used out
    assert await cache.get(neo4j, a, "v1", reader("a1-rows again"), name="rows") == "a1-rows again"
    assert await cache.get(neo4j, a, "v2", reader("never")) == "a2"


async def test_every_sized_cache_keeps_as_many_documents_as_asked() -> None:
    """A question over the library reads every document's values: ``keep_documents`` (the Retriever applies
    ``BOOKRAG_CACHE_DOCUMENTS``) sizes each registered cache for that many documents, ``per_document`` values
    each; a cache smaller than the library read every document again for each question."""
    from bookrag_neo4j.retrieval.entity_graph import ENTITY_GRAPHS

    blocks, layer = sized(DocumentCache[str](2)), sized(DocumentCache[str](2, per_document=3))
    reads: list[str] = []

    async def read() -> str:
        reads.append("read")
        return "value"

    neo4j, library = server("neo4j"), [Document(key=f"d{i}") for i in range(3)]
    try:
        for _ in range(2):  # two questions over a library of 3 documents, 2 kept: every read again
            for doc in library:
                await blocks.get(neo4j, doc, "v1", read)
        assert len(reads) == 6
        keep_documents(3)
        assert (blocks.max_entries, layer.max_entries, ENTITY_GRAPHS.max_documents) == (3, 9, 3)
        for _ in range(2):
            for doc in library:
                await blocks.get(neo4j, doc, "v1", read)
        assert len(reads) == 6 + 1  # the one evicted document once more, then all kept
    finally:
        keep_documents(DOCUMENTS)


async def test_callers_that_miss_at_once_share_one_read() -> None:
    """Steps of a plan run side by side: they wait for one read; one cancelled leaves it to the others; a
    failed read fails every caller, and the next call reads again."""
    cache: DocumentCache[str] = DocumentCache(3)
    started, release = asyncio.Event(), asyncio.Event()
    reads: list[str] = []

    async def slow() -> str:
        reads.append("slow")
        started.set()
        await release.wait()
        return "value"

    doc, neo4j = Document(key="a"), server("neo4j")
    first = asyncio.create_task(cache.get(neo4j, doc, "v1", slow))
    await started.wait()
    second = asyncio.create_task(cache.get(neo4j, doc, "v1", slow))
    third = asyncio.create_task(cache.get(neo4j, doc, "v1", slow))
    await asyncio.sleep(0)
    first.cancel()
    release.set()
    assert [await second, await third] == ["value", "value"] and reads == ["slow"]
    with pytest.raises(asyncio.CancelledError):
        await first

    reading: dict[str, asyncio.Future[str]] = {}

    async def failing() -> str:
        reads.append("failing")
        await asyncio.sleep(0.01)
        raise RuntimeError("Neo4j went away")

    results = await asyncio.gather(shared(reading, "k", failing), shared(reading, "k", failing),
                                   return_exceptions=True)
    assert [type(r) for r in results] == [RuntimeError, RuntimeError] and reads.count("failing") == 1
    assert not reading
    await asyncio.gather(shared(reading, "k", failing), return_exceptions=True)
    assert reads.count("failing") == 2


async def test_a_smaller_size_drops_the_least_recently_used_at_once() -> None:
    cache: DocumentCache[str] = DocumentCache(3)
    neo4j = server("neo4j")
    for key in "abc":
        await cache.get(neo4j, Document(key=key), "v1", lambda key=key: _value(key))
    cache.keep(1)
    reads: list[str] = []

    async def read() -> str:
        reads.append("again")
        return "again"
    assert await cache.get(neo4j, Document(key="c"), "v1", read) == "c" and reads == []  # the most recent stays
    assert await cache.get(neo4j, Document(key="a"), "v1", read) == "again"  # dropped by keep(1)


async def _value(key: str) -> str:
    return key
