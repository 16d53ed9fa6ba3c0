"""The per-document cache the in-memory readers share: one read per document, version and name; a slot per
server and database; least recently used out."""

from __future__ import annotations

from types import SimpleNamespace

from bookrag_neo4j.library.cache import DocumentCache
from bookrag_neo4j.library.documents import Document


def server(database: str) -> SimpleNamespace:
    return SimpleNamespace(conn=SimpleNamespace(uri="bolt://localhost:7687", database=database))


async def test_a_value_is_read_once_per_document_version_name_and_database() -> None:
    cache: DocumentCache[str] = DocumentCache(max_entries=3)
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
