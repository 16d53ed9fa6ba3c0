"""Selectors (paper §5): narrow a document to the "information patches" that answer a question, as
parameterised Cypher subtree queries (``cypher/retrieval/``).

    keys = await select_by_entity(db, ["<entity key>"], depth=2)         # subtrees around GT-Links
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from ..db.client import Neo4jClient
from ..library.documents import Document, TreeStatus, list_documents
from ..text.grammar import is_section_label, section_label_pattern
from ..text.lexical import bm25_scores
from ..text.names import normalise
from .document_cache import DocumentCache, sized


async def scope_documents(db: Neo4jClient, doc_keys: Sequence[str] | None) -> list[Document]:
    """The documents a question is asked of: those with these keys, or (``None``) every one, whose tree is
    complete; by file name."""
    return [d for d in await list_documents(db, doc_keys) if d.tree is TreeStatus.COMPLETE]


MAX_SECTION_NODES = 400


@dataclass(frozen=True, slots=True)
class SectionRow:
    """A section of the scope's table of contents (``retrieval/sections``): ``path`` its section path."""

    key: str
    doc_key: str
    title: str | None
    level: int
    path: str | None
    page_start: int | None
    page_end: int | None


@dataclass(frozen=True, slots=True)
class NextPassage:
    """The passage after a layout-layer passage: what the cross-page merge reads of it."""

    key: str
    text: str | None
    page_start: int
    page_end: int
    section: str | None


@dataclass(frozen=True, slots=True)
class NodeRow:
    """What is shown and cited of a tree node (``retrieval/nodes``), or of the layout layer's passage or table row
    (``layout/units``: its ``section`` key, and the passage that follows it, ``next``, for the cross-page merge)."""

    key: str
    doc_key: str
    document: str
    kind: str
    title: str | None
    text: str | None
    page_start: int | None
    page_end: int | None
    section_path: str | None
    order: int | None
    caption: str | None = None
    bbox: list[float] | None = None
    section: str | None = None
    next: NextPassage | None = None

    def __post_init__(self) -> None:
        if isinstance(self.next, dict):  # as the query returns it
            object.__setattr__(self, "next", NextPassage(**self.next))


async def subtrees_around(db: Neo4jClient, node_keys: Sequence[str], *, depth: int = 2,
                          max_nodes: int = MAX_SECTION_NODES) -> list[str]:
    """The nodes lifted to their section at depth <= ``depth`` (document = 0), or to their nearest section
    when that one holds more than ``max_nodes`` nodes, with whole subtrees."""
    if not node_keys:
        return []
    return await _subtrees(db, node_keys=node_keys, depth=depth, max_nodes=max_nodes)


async def subtrees_near(db: Neo4jClient, near: Sequence[tuple[str, float]], *, top: int, depth: int = 2,
                        max_nodes: int = MAX_SECTION_NODES) -> list[str]:
    """:func:`subtrees_around` the ``top`` best of ``near``, content blocks with their similarity to a question
    (each document's :meth:`~.document_blocks.DocumentBlocks.nearest`): the offline Select_by_Section."""
    return await subtrees_around(db, [key for key, _ in sorted(near, key=lambda hit: -hit[1])[:top]],
                                 depth=depth, max_nodes=max_nodes)


async def _subtrees(db: Neo4jClient, *, entity_keys: Sequence[str] = (), node_keys: Sequence[str] = (),
                    depth: int, max_nodes: int, budget: int | None = None) -> list[str]:
    return await db.read_rows("retrieval/select_subtrees", entity_keys=list(entity_keys),
                                 node_keys=list(node_keys), depth=depth, max_nodes=max_nodes, budget=budget)


async def select_by_entity(db: Neo4jClient, entity_keys: Sequence[str], *, depth: int = 2,
                           budget: int = 400, max_nodes: int = MAX_SECTION_NODES) -> list[str]:
    """Select_by_Entity: the nodes GT-Linked to the entities, lifted as in :func:`subtrees_around`, with whole
    subtrees. Entities are taken most specific first (fewest mentions), each adding its roots, smallest first,
    while the selection stays within ``budget`` nodes; the first root is always taken. An entity mentioned all
    over the document (the company in its own annual report) thus adds nothing once specific ones filled the budget,
    but stays a PageRank seed. One round trip (``retrieval/select_subtrees``)."""
    if not entity_keys:
        return []
    return await _subtrees(db, entity_keys=entity_keys, depth=depth, max_nodes=max_nodes, budget=budget)


async def select_by_section(db: Neo4jClient, section_keys: Sequence[str]) -> list[str]:
    """The whole subtrees of the given sections."""
    if not section_keys:
        return []
    return await db.read_rows("retrieval/select_by_section", section_keys=list(section_keys))


async def sections(db: Neo4jClient, doc_keys: Sequence[str]) -> list[SectionRow]:
    """The scope's table of contents, in reading order."""
    return await db.read_rows_as(SectionRow, "retrieval/sections", doc_keys=list(doc_keys))


TOCS: DocumentCache[list[SectionRow]] = sized(DocumentCache())  # read once a process and tree


async def table_of_contents(db: Neo4jClient, documents: Sequence[Document]) -> list[SectionRow]:
    """:func:`sections` of the documents, by document key, each read once per process and tree version."""
    found: list[SectionRow] = []
    for doc in sorted(documents, key=lambda d: d.key):
        found += await TOCS.get(db, doc, doc.indexed_at, partial(sections, db, [doc.key]))
    return found


def toc_matches(toc: Sequence[SectionRow], question: str, *, top: int) -> list[str]:
    """Keys of the ``top`` sections whose path (or title) matches the question best by BM25 over the table of
    contents, of those that share a term with it."""
    scores = bm25_scores(question, [t.path or t.title or "" for t in toc])
    return [toc[i].key for i in sorted(range(len(toc)), key=lambda i: -scores[i])[:top] if scores[i] > 0]


def match_section_title(toc: Sequence[SectionRow], title: str) -> list[str]:
    """Keys of the sections whose (normalised) title contains ``title`` or shares most of its words; a label
    ("C", "3", "2.1") matches the titles it numbers ("Appendix C ...", "3 Results", "2.1 Setup")."""
    wanted = normalise(title)
    if is_section_label(wanted):
        numbered = section_label_pattern(wanted)
        return [s.key for s in toc if numbered.search(normalise(s.title or ""))]
    words = set(wanted.split())
    exact = [s.key for s in toc if wanted and wanted in normalise(s.title or "")]
    if exact:
        return exact
    scored = [(len(words & set(normalise(s.title or "").split())) / max(len(words), 1), s.key) for s in toc]
    return [key for score, key in scored if score >= 0.6]


async def fetch_nodes(db: Neo4jClient, keys: Sequence[str]) -> list[NodeRow]:
    """Evidence details of tree nodes (what is shown and cited), in reading order."""
    if not keys:
        return []
    rows = await db.read_rows_as(NodeRow, "retrieval/nodes", keys=list(keys))
    return sorted(rows, key=lambda r: (r.doc_key, r.order or 0))
