"""Batched writes and deletes: rows cut into one transaction a batch, and ``... LIMIT $batch DETACH DELETE``
queries repeated until they run dry (a large document never needs one huge transaction).

    for batch in batches(rows):
        await graph.write("tree/merge_nodes", rows=list(batch))
    deleted = await delete_in_batches(db, "library/delete_tree_batch", doc_key=doc_key)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .client import Deleted, Neo4jClient

BATCH_SIZE = 2000
DELETE_BATCH = 5000


def batches(rows: Sequence[Any], size: int = BATCH_SIZE) -> list[Sequence[Any]]:
    """``rows`` cut into lists of at most ``size`` (one write transaction each)."""
    return [rows[i:i + size] for i in range(0, len(rows), size)]


async def delete_in_batches(db: Neo4jClient, query: str, **params: Any) -> int:
    """Run a delete query that takes ``$batch`` and returns ``deleted`` until it deletes fewer than a batch;
    the number deleted in all."""
    deleted = 0
    while True:
        (row,) = await db.write_as(Deleted, query, **params, batch=DELETE_BATCH)
        deleted += row.deleted
        if row.deleted < DELETE_BATCH:
            return deleted
