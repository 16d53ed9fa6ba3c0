"""The documents of a library: find by key or name, list, delete (exactly one document's nodes), statistics,
table of contents.

    async with GraphClient(conn) as graph:
        doc = await find_document(graph, "R-intro.pdf")
        toc = await table_of_contents(graph, doc["key"])
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from ..errors import DocumentNotFoundError
from ..graph.client import GraphClient
from ..kg.stats import graph_statistics

DELETE_BATCH = 5000


async def find_document(graph: GraphClient, doc: str) -> dict[str, Any]:
    """The document with this key, key prefix (6+ characters) or file name (the newest, if several)."""
    rows = await graph.read("library/find_document", doc=doc)
    if not rows:
        raise DocumentNotFoundError(f"no indexed document {doc!r}: see `bookrag docs list`")
    keys = {r["document"]["key"] for r in rows}
    if len(keys) > 1 and not any(r["document"]["key"] == doc for r in rows) and all(
        r["document"].get("name") != doc for r in rows
    ):
        raise DocumentNotFoundError(f"{doc!r} matches several documents ({', '.join(sorted(keys))}): give more of the key")
    return rows[0]["document"]


async def list_documents(graph: GraphClient) -> list[dict[str, Any]]:
    return await graph.read("library/list_documents")


async def delete_entities(graph: GraphClient, doc_key: str) -> int:
    """Delete a document's entities (with their relations and GT-Links), in batches, except those that a tree
    node of another document still references."""
    return await _delete_in_batches(graph, "kg/delete_entities_batch", doc_key)


async def _delete_in_batches(graph: GraphClient, query: str, doc_key: str) -> int:
    """Run a ``... LIMIT $batch DETACH DELETE`` query until it deletes fewer than a batch."""
    deleted = 0
    while True:
        (row,) = await graph.write(query, doc_key=doc_key, batch=DELETE_BATCH)
        deleted += row["deleted"]
        if row["deleted"] < DELETE_BATCH:
            return deleted


async def delete_document(graph: GraphClient, doc_key: str, image_dir: Path | None = None) -> int:
    """Delete the document, its entities, tree nodes and pages (in batches), and its extracted images."""
    deleted = await delete_entities(graph, doc_key)
    deleted += await _delete_in_batches(graph, "library/delete_tree_batch", doc_key)
    (row,) = await graph.write("library/delete_pages_and_document", doc_key=doc_key)
    if image_dir is not None and image_dir.is_dir():
        for image in image_dir.glob(f"{doc_key[:16]}-p*.png"):
            image.unlink(missing_ok=True)
    return deleted + row["deleted"]


async def document_stats(graph: GraphClient, doc_key: str, *, with_graph: bool = False) -> dict[str, Any]:
    """Counts: pages, blocks by type, sections by level; ``with_graph``: the knowledge graph's statistics
    (see :func:`bookrag_neo4j.kg.stats.graph_statistics`)."""
    rows = await graph.read("library/stats", doc_key=doc_key)
    if not rows:
        raise DocumentNotFoundError(f"no indexed document with key {doc_key!r}")
    row = rows[0]
    sections = Counter(row["levels"])
    blocks = Counter(row["kinds"])
    return {
        "key": row["key"], "name": row["name"], "title": row["title"], "documents": 1, "pages": row["pages"],
        "sections": sum(sections.values()),
        "sections_by_level": {k: sections[k] for k in sorted(sections, key=lambda k: int(k[1:]))},
        "blocks": sum(blocks.values()), "blocks_by_type": dict(sorted(blocks.items())),
    } | ({"graph": await graph_statistics(graph, doc_key)} if with_graph else {})


async def table_of_contents(graph: GraphClient, doc_key: str) -> list[dict[str, Any]]:
    return await graph.read("library/toc", doc_key=doc_key)
