"""Apply the BookIndex schema (``cypher/schema.cypher``) and wait until its indexes are ONLINE.

    async with Neo4jClient(conn) as db:
        indexes = await apply_schema(db, dimensions=384)

Applying twice is a no-op, also at once from several processes (indexing workers). A vector index created
earlier with another dimension is reported as a :class:`~bookrag_neo4j.errors.SchemaError` (``IF NOT EXISTS``
would silently keep the old one). :func:`rebuild_fulltext` builds the full-text indexes anew: Lucene counts the
nodes deleted by a re-index in its BM25 statistics until it merges them away, so scores drift with the library's
history (docs/eval/ocr-scan-layout/).
"""

from __future__ import annotations

import logging
import re

from neo4j.exceptions import ClientError
from pydantic import BaseModel, Field, field_validator

from ..errors import SchemaError
from .client import Neo4jClient
from .queries import load_query, split_statements

log = logging.getLogger(__name__)

# What CREATE ... IF NOT EXISTS answers when a concurrent transaction (another indexing worker) created the same
# index first: measured with four concurrent clients, vector indexes fail so (constraints deadlock and are retried).
RACED = "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists"


class IndexInfo(BaseModel):
    """An index of the database, as ``SHOW INDEXES`` describes it (``schema/indexes``)."""

    name: str
    type: str = Field(description="RANGE, TEXT, FULLTEXT, VECTOR, LOOKUP, POINT")
    state: str
    labels: list[str] = Field(default_factory=list, description="The labels or relationship types it covers.")
    properties: list[str] = Field(default_factory=list)
    dimensions: int | None = Field(None, description="A vector index's dimensions.")

    @field_validator("labels", "properties", mode="before")
    @classmethod
    def _none_is_empty(cls, value: list[str] | None) -> list[str]:  # a LOOKUP index has neither
        return value or []


def schema_statements(name: str = "schema") -> list[str]:
    """The statements of a schema file (``cypher/schema.cypher``, or a layer's), in order."""
    return split_statements(load_query(name))


def vector_indexes(name: str = "schema") -> list[str]:
    """The names of the vector indexes a schema file creates."""
    return re.findall(r"CREATE VECTOR INDEX (\w+)", load_query(name))


VECTOR_INDEXES = tuple(vector_indexes())
SCHEMA_FILES = ("schema", "layout/schema", "content/schema")  # the BookIndex's and its layers'


def fulltext_statements() -> dict[str, str]:
    """Each full-text index of the schema files, by name: the statement that creates it."""
    return {match.group(1): statement for name in SCHEMA_FILES for statement in schema_statements(name)
            if (match := re.match(r"CREATE FULLTEXT INDEX (\w+)", statement))}


async def apply_schema(db: Neo4jClient, *, dimensions: int, timeout_s: int = 300,
                       name: str = "schema") -> list[IndexInfo]:
    """Create the constraints and indexes of schema file ``name`` if missing (the BookIndex's, or a layer's
    such as ``layout/schema``), wait until all are ONLINE, return every index of the database."""
    wanted = vector_indexes(name)
    for statement in schema_statements(name):
        try:
            await db.run(statement, {"dimensions": dimensions})
        except ClientError as exc:
            if exc.code == RACED:  # another worker created it between IF NOT EXISTS and the creation: it is there
                continue
            raise SchemaError(f"schema statement failed: {exc.message}\n{statement}") from exc
    await _await_online(db, timeout_s)
    indexes = await db.read_as(IndexInfo, "schema/indexes")
    for index in indexes:
        if index.name in wanted and index.dimensions != dimensions:
            raise SchemaError(
                f"vector index {index.name!r} has {index.dimensions} dimensions but the embedder has "
                f"{dimensions}; drop it (DROP INDEX {index.name}) and re-embed, or configure the same embedder"
            )
    log.info("schema applied: %d indexes online", len(indexes))
    return indexes


async def rebuild_fulltext(db: Neo4jClient, *, timeout_s: int = 300) -> list[str]:
    """Drop and create again each full-text index that exists (built from the nodes there now, so its BM25
    statistics count no deleted node); wait until they are ONLINE; return their names. Questions that read an
    index fail while it is rebuilt (seconds for a library of 40 documents)."""
    existing = {row["name"] for row in await db.read("schema/indexes")}
    statements = fulltext_statements()
    rebuilt = [name for name in statements if name in existing]
    for name in rebuilt:  # names from the schema files, not from input: DROP INDEX takes no parameter
        await db.run(f"DROP INDEX {name} IF EXISTS")
        await db.run(statements[name])
    await _await_online(db, timeout_s)
    log.info("full-text indexes rebuilt: %s", ", ".join(rebuilt))
    return rebuilt


async def _await_online(db: Neo4jClient, timeout_s: int) -> None:
    try:
        await db.write("schema/await_indexes", seconds=timeout_s)
    except ClientError as exc:
        raise SchemaError(f"indexes did not come ONLINE within {timeout_s}s: {exc.message}") from exc
