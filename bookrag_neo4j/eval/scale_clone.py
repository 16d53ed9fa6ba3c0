"""A library grown by copying indexed documents in Cypher, to measure the query path at sizes indexing cannot reach.

    sources = await clone_sources(db)                     # the indexed documents that are not clones
    made = await grow_library(db, sources, documents=50)  # clones round-robin over the sources
    await drop_clones(db, settings.image_dir)             # the library as it was

A clone is a complete server-side copy of one document (``cypher/bench/``): its nodes, their relationships, and links
(not copies) to the shared ``Keyword`` nodes. Keys are rewritten by one rule: a string property that is the source's key
or starts with its key prefix gets the clone's prefix, so a clone's keys look like a real document's. The Document is
``CLONE-NNNN-<name>`` with ``clone_of``, its files the source's; ``SAME_AS`` edges are not copied. Each clone is checked
against its source (:func:`document_shape`); a half-made one is made again.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from ..db.batching import batches, delete_in_batches
from ..db.client import Neo4jClient
from ..errors import ScaleRunError
from ..keys import key_prefix
from ..library.catalogue import delete_document
from ..library.documents import Document, list_documents

log = logging.getLogger(__name__)

# Labels a cloned node may carry (the families of document_node_keys and the labels on them); anything else on a
# node is left off the clone, and document_shape then refuses the clone.
NODE_LABELS = ("TreeNode", "Section", "Text", "Table", "Image", "Equation", "MasterSection", "ContentNode", "Page",
               "Entity", "Passage", "TableChunk", "TableOfContents")
RELATIONSHIP_TYPES = ("HAS_CHILD", "HAS_PAGE", "HAS_TOC", "HAS_ENTRY", "ON_PAGE", "NEXT", "NEXT_SECTION",
                      "REFERS_TO", "SIMILAR", "COVERS", "HAS_ROW", "G2_LINK", "HAS_KEYWORD", "MENTIONED_IN",
                      "RELATED", "CONTAINED_IN")
NODE_BATCH = 1000  # source nodes a transaction (their relationships go with them: up to ~20 each)
NAME = "CLONE-{number:04d}-{name}"


class Shape(BaseModel):
    """A document's make-up: node counts by label, its nodes' outgoing relationships by ``"TYPE reach"`` (own,
    shared, other), incoming relationships from other documents, and nodes whose key lacks its prefix."""

    labels: dict[str, int]
    outgoing: dict[str, int]
    incoming_other: int
    foreign_keys: int

    def copied(self) -> Shape:
        """What a clone of this document holds: the same, less the relationships with other documents."""
        return self.model_copy(update={"outgoing": {k: v for k, v in self.outgoing.items() if not k.endswith(" other")},
                                       "incoming_other": 0})


class HeldClone(BaseModel):
    """A clone in the library, as its Document records it."""

    key: str
    name: str
    clone_of: str
    clone_number: int
    clone_status: str  # 'copying' until it is complete


class CloneReport(BaseModel):
    """One clone: made now (with its seconds) or found complete (``reused``)."""

    number: int
    key: str
    name: str
    source: str
    nodes: int
    relationships: int
    seconds: float
    reused: bool


def clone_key(source_key: str, number: int) -> str:
    """The key of clone ``number`` of the document ``source_key``: a prefix of its own, the source's tail."""
    prefix = hashlib.sha256(f"{source_key}|clone|{number}".encode()).hexdigest()[:16]
    return prefix + source_key[len(prefix):]


async def document_shape(db: Neo4jClient, doc_key: str) -> Shape:
    (row,) = await db.read("bench/document_shape", doc_key=doc_key, prefix=key_prefix(doc_key))
    return Shape(labels={r["name"]: r["count"] for r in row["labels"]},
                 outgoing={r["name"]: r["count"] for r in row["outgoing"]},
                 incoming_other=row["incoming_other"], foreign_keys=row["foreign_keys"])


async def clone_sources(db: Neo4jClient) -> list[Document]:
    """The documents clones are made of: every complete document that is not a clone, by name."""
    clones = {c.key for c in await list_clones(db)}
    return [d for d in await list_documents(db) if d.status == "complete" and d.key not in clones]


async def list_clones(db: Neo4jClient) -> list[HeldClone]:
    """The clones in the library, by number."""
    return [HeldClone.model_validate(row) for row in await db.read_rows("bench/clones")]


async def check_source(db: Neo4jClient, source: Document) -> Shape:
    """What a clone of ``source`` must hold; :class:`ScaleRunError` when the source has nodes a clone would
    not copy (a scan of every node)."""
    (stray,) = await db.read("bench/stray_nodes", doc_key=source.key)
    if stray["rows"]:
        raise ScaleRunError(f"{source.name} has nodes of labels a clone does not copy: {stray['rows']}")
    return (await document_shape(db, source.key)).copied()


async def make_clone(db: Neo4jClient, source: Document, number: int, expected: Shape | None = None,
                     ) -> CloneReport:
    """Copy ``source`` as clone ``number`` (see the module docstring) and check it against ``expected``
    (:func:`check_source`'s, found here if not given); :class:`ScaleRunError` when they differ."""
    expected = expected or await check_source(db, source)
    began = time.perf_counter()
    key = clone_key(source.key, number)
    params = {"source": source.key, "source_prefix": key_prefix(source.key), "clone": key, "prefix": key_prefix(key)}
    keys = await db.read_rows("bench/document_node_keys", doc_key=source.key)
    await db.write("bench/clone_document", **params, number=number,
                      clone_name=NAME.format(number=number, name=source.name))
    nodes = relationships = 0
    for batch in batches(keys, NODE_BATCH):
        (row,) = await db.write("bench/clone_nodes", **params, keys=list(batch), labels=list(NODE_LABELS))
        nodes += row["created"]
    for batch in batches([source.key, *keys], NODE_BATCH):
        (row,) = await db.write("bench/clone_relationships", **params, keys=list(batch),
                                   types=list(RELATIONSHIP_TYPES))
        relationships += row["created"]
    made = await document_shape(db, key)
    if made != expected:
        raise ScaleRunError(f"clone {number} of {source.name} differs from its source: {_difference(expected, made)}")
    await db.write("bench/finish_clone", clone=key)
    return CloneReport(number=number, key=key, name=NAME.format(number=number, name=source.name), source=source.key,
                       nodes=nodes + 1, relationships=relationships, seconds=round(time.perf_counter() - began, 2),
                       reused=False)


def _difference(expected: Shape, made: Shape) -> str:
    parts = []
    for field in ("labels", "outgoing"):
        want, got = getattr(expected, field), getattr(made, field)
        parts += [f"{name}: {want.get(name, 0)} in the source, {got.get(name, 0)} in the clone"
                  for name in sorted(set(want) | set(got)) if want.get(name, 0) != got.get(name, 0)]
    if made.foreign_keys:
        parts.append(f"{made.foreign_keys} keys without the clone's prefix")
    return "; ".join(parts)


async def grow_library(db: Neo4jClient, sources: list[Document], *, documents: int,
                       progress: Callable[[str], None] | None = None) -> list[CloneReport]:
    """Clones numbered 1.. of ``sources``, round-robin, until the library of ``sources`` and clones holds
    ``documents`` documents: the clones made now and those found complete (reused); clones numbered beyond
    are dropped. A clone whose number is taken by a clone of another source (another run's) is an error:
    drop the clones first."""
    say = progress or log.info
    if not sources:
        raise ScaleRunError("no complete indexed document to clone: index one first")
    held = {c.clone_number: c for c in await list_clones(db)}
    wanted = max(0, documents - len(sources))
    for number, extra in sorted(held.items()):
        if number > wanted:  # a larger library's: the library must hold ``documents`` exactly
            say(f"dropping clone {number}: the library is measured at {documents} documents")
            await drop_clone(db, extra.key)
    shapes: dict[str, Shape] = {}
    reports = []
    for number in range(1, wanted + 1):
        source = sources[(number - 1) % len(sources)]
        key = clone_key(source.key, number)
        found = held.get(number)
        if found and found.clone_status == "complete" and found.key == key:
            reports.append(CloneReport(number=number, key=key, name=found.name, source=source.key, nodes=0,
                                       relationships=0, seconds=0.0, reused=True))
            continue
        if found and found.clone_of != source.key:
            raise ScaleRunError(f"clone {number} in the library is a copy of {found.clone_of}, not of "
                                f"{source.key} ({source.name}): another run's clones; drop them first (--drop-clones)")
        if found:
            say(f"clone {number} was left half-made: making it again")
            await drop_clone(db, found.key)
        if source.key not in shapes:
            shapes[source.key] = await check_source(db, source)
        report = await make_clone(db, source, number, shapes[source.key])
        say(f"clone {number}: {report.name}, {report.nodes:,} nodes, {report.relationships:,} relationships in "
            f"{report.seconds} s")
        reports.append(report)
    return reports


async def drop_clone(db: Neo4jClient, key: str, image_dir: Path | None = None) -> int:
    """Delete one clone as ``bookrag docs delete`` deletes a document (its catalog projections too), then any of
    its nodes left without a Document (an interrupted copy)."""
    deleted = await delete_document(db, key, image_dir)
    return deleted + await delete_in_batches(db, "bench/delete_clone_batch", doc_key=key)


async def drop_clones(db: Neo4jClient, image_dir: Path | None = None) -> int:
    """Delete every clone in the library; how many there were."""
    clones = await list_clones(db)
    for clone in clones:
        await drop_clone(db, clone.key, image_dir)
    return len(clones)
