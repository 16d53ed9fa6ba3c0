"""Each document's content blocks as the question path reads them, and their similarities to a question.

    blocks = await document_blocks(db, doc, max_chars=2000)   # the texts and BM25 postings, read once
    similarities = await block_similarities(db, doc, blocks, question_vector)   # computed in Neo4j
    keys = blocks.nearest(similarities, top=3)                # the offline Select_by_Section
    scores = blocks.bm25(question, keys)                      # Text_Reasoning: the document's IDF and lengths

A lookup scoped to a document is exact over that document, so its answer does not depend on the library around it (as a
vector index's top k or a Lucene index's IDF would). Similarities stay in the database (``vector.similarity.cosine``,
one query a question and document): no embedding crosses the wire. BM25's IDF and mean length come from all the
document's blocks, not the candidates (where a term that fills the selected section would look rare). :func:`labels`
finds the short line naming a block ("Net sales"). Kept per document version (:mod:`bookrag_neo4j.retrieval.document_cache`).
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TypeVar

import numpy as np

from ..db.client import Neo4jClient
from ..db.vectors import use_plugin
from ..library.documents import Document
from ..text.lexical import LexicalStats, Postings
from ..text.references import Reference, mentions, pages, reference_of
from .document_cache import DocumentCache, sized
from .entity_graph import best_first
from .reasoners import Candidate, node_text

log = logging.getLogger(__name__)

K = TypeVar("K")
V = TypeVar("V")


@dataclass(frozen=True, slots=True)
class BlockRow:
    """A content block as ``retrieval/document_blocks`` returns it (its text cut to the question path's length)."""

    key: str
    doc_key: str
    order: int | None
    kind: str
    section_path: str
    title: str
    page_start: int | None
    page_end: int | None
    text: str


@dataclass(frozen=True, slots=True)
class PageLabelRow:
    """A printed page label ("ix", lower-cased) and the physical page it is on (``retrieval/page_labels``)."""

    label: str
    number: int


@dataclass(frozen=True)
class DocumentBlocks:
    """One document's content blocks: keys, BM25 statistics, postings and lengths (tokens of each block's
    :func:`node_text`) and each block as the reasoners read it (``nodes``, with its label (:func:`labels`),
    without a similarity)."""

    keys: list[str]
    nodes: dict[str, Candidate]
    lexicon: Postings  # of each block's node_text, in row order
    rows: dict[str, int]  # key -> its row in the postings and similarities
    printed: dict[str, list[int]] = field(default_factory=dict)  # a printed page label -> the pages it is on
    tables: dict[str, str] = field(default_factory=dict)  # a table's key -> label|title|section, :func:`squeezed`
    last_scores: dict[tuple[str, float, float], np.ndarray] = field(default_factory=dict, repr=False, compare=False)
    kinds: np.ndarray = field(default_factory=lambda: np.array([], dtype=str), repr=False, compare=False)
    spans: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)), repr=False, compare=False)  # pages, NaN: none
    plugin_rows: dict[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False)  # by key order digest

    @property
    def stats(self) -> LexicalStats:
        return self.lexicon.stats

    def candidates(self, keys: Sequence[str], similarities: np.ndarray) -> list[Candidate]:
        """The blocks among ``keys`` (others are left out), each with its similarity from ``similarities``
        (:func:`block_similarities`; None without an embedding, or for a question of another dimension)."""
        found = [k for k in keys if k in self.nodes]
        if not found:
            return []
        scores = similarities[[self.rows[k] for k in found]].tolist() if len(similarities) else [math.nan] * len(found)
        return [self.nodes[k].with_similarity(None if math.isnan(s) else s) for k, s in zip(found, scores, strict=True)]

    def population(self, question: str, similarities: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """The similarities of the embedded blocks and every block's BM25: what Text_Reasoning ranks a candidate
        among, so that its score does not depend on the other candidates (None for a question of another
        dimension: the candidates are embedded anew, and ranked among each other)."""
        return (similarities[~np.isnan(similarities)], self.scores(question)) if len(similarities) else None

    def bm25(self, question: str, keys: Sequence[str], *, k1: float = 1.5, b: float = 0.75) -> list[float]:
        """Okapi BM25 of the blocks ``keys`` (all of this document) with the document's statistics: what
        :func:`bm25_scores` gives for their :func:`node_text` with ``stats``, from the postings."""
        return self.scores(question, k1=k1, b=b)[[self.rows[k] for k in keys]].tolist()

    def scores(self, question: str, *, k1: float = 1.5, b: float = 0.75) -> np.ndarray:
        """Every block's BM25 (in row order; not to be modified). The last question's are kept: Fetch's first
        stage and Text_Reasoning ask for the same question's."""
        if (kept := self.last_scores.get((question, k1, b))) is not None:
            return kept
        scores = self.lexicon.bm25(question, k1=k1, b=b)
        self.last_scores.clear()
        self.last_scores[(question, k1, b)] = scores
        return scores

    def filtered(self, *, kinds: Sequence[str] | None = None, page_from: int | None = None,
                 page_to: int | None = None, within: Collection[str] | None = None) -> list[str]:
        """Filter_Modal's and Filter_Range's blocks, from this copy rather than a query over every node of the
        scope: those of ``kinds`` (None or empty: every kind), reaching page ``page_from`` and starting by page
        ``page_to`` (a bound leaves out a block without pages, as Cypher's null would) and among ``within``; in
        reading order."""
        keep = np.ones(len(self.keys), dtype=bool)
        if kinds:
            keep &= np.isin(self.kinds, list(kinds))
        if page_from is not None:
            keep &= self.spans[:, 1] >= page_from
        if page_to is not None:
            keep &= self.spans[:, 0] <= page_to
        if within is not None:
            inside = set(within)
            keep &= np.fromiter((k in inside for k in self.keys), dtype=bool, count=len(self.keys))
        return [self.keys[i] for i in self.reading if keep[i]]

    @cached_property
    def reading(self) -> np.ndarray:
        """The rows in reading order."""
        return np.argsort([self.nodes[k].order for k in self.keys], kind="stable")

    def nearest(self, similarities: np.ndarray, top: int) -> list[tuple[str, float]]:
        """The ``top`` embedded blocks by ``similarities``, as (key, similarity), best first."""
        if not self.keys or not len(similarities):
            return []
        scores = np.nan_to_num(similarities, nan=-1.0)  # blocks without an embedding come last
        return [(self.keys[i], float(scores[i])) for i in best_first(scores, top) if scores[i] >= 0]

    def first_stage(self, question: str, similarities: np.ndarray, top: int) -> list[str]:
        """The ``top`` blocks by BM25 (those holding a term of the question), then the ``top`` nearest by
        ``similarities``: the document's own best blocks, whatever a selection holds (a key may come twice)."""
        lexical = self.scores(question)
        return [*(self.keys[i] for i in best_first(lexical, top) if lexical[i] > 0),
                *(k for k, _ in self.nearest(similarities, top))]

    def named(self, question: str, titles: Sequence[str] = ()) -> list[str]:
        """The blocks whose title or text starts with a figure, table, exhibit or equation the question names
        by number ("Fig. 3." for "in figure 3"; :mod:`..tree.references`), then the blocks on a page it names
        ("on page 1": the page printed "1", else the first physical page; "on the cover": the first), then the
        tables whose label, title or own section's title holds one of ``titles`` (a statement it names, "balance sheet":
        :meth:`..glossary.Glossary.titles`): in the question's order, each name's blocks in reading order."""
        return list(dict.fromkeys(key for group in self.named_groups(question, titles) for key in group))

    def named_groups(self, question: str, titles: Sequence[str] = ()) -> list[list[str]]:
        """The blocks of :meth:`named`, by the name that found them (a figure, a page, a title), those found."""
        groups = [self.references.get(ref, []) for ref in mentions(question)]
        for page in pages(question):
            if page.place:
                numbers = [max(self.on_page, default=0) if page.place < 0 else page.place]
            else:
                numbers = self.printed.get(page.label) or ([int(page.label)] if page.label.isdigit() else [])
            groups.append([k for n in numbers for k in self.on_page.get(n, [])])
        for title in map(squeezed, titles):
            groups.append([k for k, named in self.tables.items() if title in named])
        return [group for group in groups if group]

    @cached_property
    def on_page(self) -> dict[int, list[str]]:
        """The blocks by each page they are on, in reading order."""
        return _grouped((n, key) for key in self.keys for n in range(
            self.nodes[key].page_start, max(self.nodes[key].page_start, self.nodes[key].page_end) + 1))

    @cached_property
    def references(self) -> dict[Reference, list[str]]:
        """The blocks by the numbered reference their title or text starts with (:func:`..tree.references.reference_of`)."""
        return _grouped((ref, key) for key in self.keys
                        if (ref := reference_of(self.nodes[key].title) or reference_of(self.nodes[key].text)))


LABEL_MAX_WORDS, LABEL_MAX_CHARS = 12, 100
_WORD = re.compile(r"[^\W\d_]{3,}")
_AMOUNT = re.compile(r"\d[,.]\d{3}|\d\s*%|\$")
_NUMBER = re.compile(r"[\d\W_]*\d[\d\W_]*")  # a token of digits and punctuation, without a letter


def is_label(text: str) -> bool:
    """A short line that names what follows rather than says something: at most 12 words and 100 characters,
    starting with a capital, one word of three letters or more, at most one number ("X5" and "FY2018"
    are words) and no amount (not a table row's figures), no address, and no sentence or lead-in punctuation at its end."""
    line = " ".join(text.split())
    if not 0 < len(line) <= LABEL_MAX_CHARS or len(line.split()) > LABEL_MAX_WORDS or line[-1] in ".,;:":
        return False
    first = next((c for c in line if c.isalpha()), "")
    return (first.isupper() and line[0] not in "$—–-(" and _WORD.search(line) is not None
            and _AMOUNT.search(line) is None and "://" not in line and "www." not in line
            and sum(_NUMBER.fullmatch(t) is not None for t in line.split()) <= 1)


def labels(rows: Sequence[BlockRow]) -> dict[str, str]:
    """Each block's label: the last text block above it in reading order, within its section, that
    :func:`is_label` accepts. A label holds until the next one or the end of the section, as a heading would;
    a label's own label is the one before it."""
    found: dict[str, str] = {}
    section, current = None, ""
    for row in sorted(rows, key=lambda r: r.order or 0):
        if row.section_path != section:
            section, current = row.section_path, ""
        if current:
            found[row.key] = current
        if row.kind == "text" and is_label(row.text):
            current = " ".join(row.text.split())
    return found


def read_blocks(rows: Sequence[BlockRow], printed: Sequence[PageLabelRow] = ()) -> DocumentBlocks:
    """A document's blocks from its ``retrieval/document_blocks`` rows and printed page labels."""
    labelled = labels(rows)
    nodes = {r.key: Candidate(key=r.key, doc_key=r.doc_key, order=r.order or 0, title=r.title,
                              section_path=r.section_path, text=r.text, page_start=r.page_start or 0,
                              page_end=r.page_end or 0, label=labelled.get(r.key, "")) for r in rows}
    return DocumentBlocks(keys=[r.key for r in rows], nodes=nodes,
                          lexicon=Postings.of([node_text(nodes[r.key]) for r in rows]),
                          rows={r.key: i for i, r in enumerate(rows)},
                          printed=_grouped((p.label, p.number) for p in printed),
                          kinds=np.array([r.kind for r in rows], dtype=str),
                          spans=np.array([[np.nan if b is None else b for b in (r.page_start, r.page_end)]
                                          for r in rows], dtype=float).reshape(-1, 2),
                          tables={r.key: squeezed("|".join((nodes[r.key].label, r.title,
                                                            r.section_path.rsplit(" > ", 1)[-1])))
                                  for r in sorted(rows, key=lambda r: r.order or 0) if r.kind == "table"})


def squeezed(text: str) -> str:
    """``text`` lower-cased without whitespace, as titles are compared: a PDF's letter-spaced heading comes out
    of text extraction with spaces inside words ("Consolidated Balance Shee t")."""
    return "".join(text.lower().split())


def _grouped(pairs: Iterable[tuple[K, V]]) -> dict[K, list[V]]:
    """The values of ``pairs`` by key, each key's in the order given."""
    found: dict[K, list[V]] = {}
    for key, value in pairs:
        found.setdefault(key, []).append(value)
    return found


BLOCKS: DocumentCache[DocumentBlocks] = sized(DocumentCache())  # shared by every agent of the process


async def document_blocks(db: Neo4jClient, doc: Document, *, max_chars: int) -> DocumentBlocks:
    """The blocks of ``doc``: one query the first time, then kept (:data:`BLOCKS`)."""
    async def read() -> DocumentBlocks:
        blocks = read_blocks(
            await db.read_rows_as(BlockRow, "retrieval/document_blocks", doc_key=doc.key, max_chars=max_chars),
            await db.read_rows_as(PageLabelRow, "retrieval/page_labels", doc_key=doc.key))
        log.debug("read the blocks of %s: %d blocks, %d terms", doc.key, len(blocks.keys),
                  len(blocks.stats.document_frequency))
        return blocks
    return await BLOCKS.get(db, doc, f"{doc.indexed_at} {doc.layout_built_at}", read)  # labels: the layout layer


async def block_similarities(db: Neo4jClient, doc: Document, blocks: DocumentBlocks,
                             vector: Sequence[float], *, engine: str = "auto") -> np.ndarray:
    """Every block's similarity to ``vector``, (1 + cos) / 2, in ``blocks``' row order (NaN without an
    embedding), computed in Neo4j over the document's own blocks (``retrieval/block_similarities``, or the plugin
    where the server has it: :mod:`bookrag_neo4j.db.vectors`); empty when no stored embedding has ``vector``'s
    dimension (an index made with another embedder)."""
    vector = list(map(float, vector))
    if await use_plugin(db, engine=engine):
        return await _plugin_similarities(db, doc, blocks, vector)
    found = await db.read_rows("retrieval/block_similarities", doc_key=doc.key, vector=vector)
    if not found:
        return np.zeros(0)
    scores = np.full(len(blocks.keys), np.nan)
    for key, similarity in found:
        if (row := blocks.rows.get(key)) is not None:  # a block written since the copy was read waits for it
            scores[row] = similarity
    return scores


async def _plugin_similarities(db: Neo4jClient, doc: Document, blocks: DocumentBlocks,
                               vector: list[float]) -> np.ndarray:
    """The plugin's scores come as bytes in its order of the keys, and the keys only when that order (a digest)
    is not one ``blocks`` holds already: a question moves 8 bytes a block instead of its key and a boxed score."""
    order, keys, raw = await db.read_rows("plugin/block_similarity_array", doc_key=doc.key, vector=vector,
                                             order=next(reversed(blocks.plugin_rows), ""))
    if keys is None and order not in blocks.plugin_rows:  # dropped meanwhile by a call that met a new order
        order, keys, raw = await db.read_rows("plugin/block_similarity_array", doc_key=doc.key, vector=vector,
                                                 order="")
    if keys is not None:  # a block written since the copy was read waits for it (-1)
        blocks.plugin_rows[order] = np.array([blocks.rows.get(k, -1) for k in keys], dtype=np.int64)
        while len(blocks.plugin_rows) > 2:
            blocks.plugin_rows.pop(next(iter(blocks.plugin_rows)))
    found = np.frombuffer(raw, dtype="<f8")
    if not np.isfinite(found).any():
        return np.zeros(0)
    rows = blocks.plugin_rows[order]
    scores = np.full(len(blocks.keys), np.nan)
    held = rows >= 0
    scores[rows[held]] = found[held]
    return scores
