"""Deleting a document (exactly its own nodes and what only it references) or only its knowledge graph, and
reading its table of contents.

    async with Neo4jClient(conn) as db:
        doc = await find_document(db, "R-intro.pdf")
        toc = await table_of_contents(db, doc.key)
        deleted = await delete_document(db, doc.key, image_dir)
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from ..db.batching import delete_in_batches
from ..db.client import Deleted, Neo4jClient
from ..db.projections import drop_document_projections
from ..keys import image_file_glob
from .layers import clear_state


async def delete_entities(db: Neo4jClient, doc_key: str) -> int:
    """Delete a document's entities (with their relations and GT-Links), in batches, except those that a tree
    node of another document still references, and its entity graph's projections in the GDS catalog."""
    await drop_document_projections(db, doc_key)
    return await delete_in_batches(db, "kg/delete_entities_batch", doc_key=doc_key)


async def delete_content_graph(db: Neo4jClient, doc_key: str) -> int:
    """Delete a document's content graph (:mod:`bookrag_neo4j.content.build`): its G2_LINK edges, the keyword
    links it added (and keywords no one else uses), the ``:ContentNode`` label and ``g2_`` properties, and the
    Document's ``g2_status``. Its passages, tables and images stay."""
    (row,) = await db.write_as(Deleted, "content/delete", doc_key=doc_key)
    await db.write("content/delete_orphan_keywords")
    await clear_state(db, doc_key, "g2")
    return row.deleted


async def delete_layout(db: Neo4jClient, doc_key: str) -> int:
    """Delete a document's layout layer (:mod:`bookrag_neo4j.layout.build`) and the content graph built on its
    passages: its keywords and stems that no other document uses, its passages and table rows (in batches), its
    ToC and the layer's edges and labels on its tree."""
    await delete_content_graph(db, doc_key)
    (row,) = await db.write_as(Deleted, "layout/delete_keywords", doc_key=doc_key)
    deleted = row.deleted + await delete_in_batches(db, "layout/delete_units_batch", doc_key=doc_key)
    await db.write("layout/delete_structure", doc_key=doc_key)
    return deleted


async def delete_document(db: Neo4jClient, doc_key: str, image_dir: Path | None = None) -> int:
    """Delete the document, its entities, layout layer, tree nodes and pages (in batches), and its extracted
    images in ``image_dir`` (``settings.image_dir``: this server's and database's), but any that a node of the
    database still references."""
    deleted = await delete_entities(db, doc_key) + await delete_layout(db, doc_key)
    deleted += await delete_in_batches(db, "library/delete_tree_batch", doc_key=doc_key)
    (row,) = await db.write_as(Deleted, "library/delete_pages_and_document", doc_key=doc_key)
    if image_dir is not None and image_dir.is_dir():
        images = {str(p): p for p in image_dir.glob(image_file_glob(doc_key))}
        kept = set(await db.read_rows("library/referenced_images", paths=list(images))) if images else set()
        for name, image in images.items():
            if name not in kept:
                image.unlink(missing_ok=True)
    return deleted + row.deleted


class TocEntry(BaseModel):
    """One section of a table of contents: its title, level (1 the top), first page and key."""

    title: str
    level: int
    page: int | None = None
    key: str


class Deletion(BaseModel):
    """What deleting a document removed: its ``key`` and ``name``, and how many nodes were ``deleted``."""

    key: str
    name: str
    deleted: int


async def table_of_contents(db: Neo4jClient, doc_key: str) -> list[TocEntry]:
    """A document's sections in reading order."""
    return [TocEntry.model_validate(row) for row in await db.read("library/toc", doc_key=doc_key)]
