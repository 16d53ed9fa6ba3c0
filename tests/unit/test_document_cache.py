"""The per-document cache the in-memory readers share: one read per document, version and name; a slot per
server and database; least recently used out."""

from __future__ import annotations

from types import SimpleNamespace

from bookrag_neo4j.library.cache import DOCUMENTS, DocumentCache, keep_documents, sized
from bookrag_neo4j.library.documents import Document


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
