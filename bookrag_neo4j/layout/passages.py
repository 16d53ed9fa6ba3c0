"""Passages: section-aware windows of about 400 words over a document's content blocks, in reading order.

    passages = make_passages(blocks)          # blocks: LayoutBlock rows in reading order
    passages[0].blocks, passages[0].pages, passages[0].text

A passage never crosses a section boundary (the block's parent section) or a page break (a block that starts on
a later page opens a new passage; the cross-page merge joins two passages back where a sentence runs over the
break), takes whole blocks only (every content block is covered by exactly one passage; a block longer than the
window is a passage of its own) and closes once it holds ``words`` words. Page-bounded passages make a hit's
pages the pages of its evidence, which is what a citation and page recall need. Its embedding pools its blocks'
stored embeddings (weighted by words): the encoder sees every word of a block (a 400-word passage is cut at the
encoder's 256 tokens), and the layer costs no encoder time for passages. Passages are the shared retrieval unit
of SuperRAG, G²-Reader and the ``hybrid``, ``bm25`` and ``dense`` baselines.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

PASSAGE_WORDS = 400


@dataclass(frozen=True)
class LayoutBlock:
    """A content block as the layout stage reads it from the tree (``cypher/layout/blocks.cypher``)."""

    key: str
    kind: str
    text: str
    page_start: int
    page_end: int
    section: str | None  # the parent section's key (None: directly under the document)
    section_path: str = ""
    caption: str = ""
    table_markdown: str = ""
    embedding: list[float] | None = field(default=None, repr=False)


@dataclass
class PassageDraft:
    """One passage before it is written: its blocks in order, its section and its text."""

    section: str | None
    heading: str
    blocks: list[str] = field(default_factory=list)
    vectors: list[tuple[int, list[float]]] = field(default_factory=list, repr=False)  # (words, block embedding)
    pages: list[int] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)
    words: int = 0

    @property
    def text(self) -> str:
        return "\n".join(self.parts)

    def pooled_embedding(self) -> list[float] | None:
        """The blocks' embeddings averaged, weighted by words, unit length (None when no block has one)."""
        if not self.vectors:
            return None
        pooled = np.sum([max(w, 1) * np.asarray(v) for w, v in self.vectors], axis=0)
        norm = float(np.linalg.norm(pooled))
        return (pooled / norm).tolist() if norm else None

    def add(self, block: LayoutBlock) -> None:
        self.blocks.append(block.key)
        self.parts.append(block.text)
        words = len(block.text.split())
        self.words += words
        if block.embedding is not None:
            self.vectors.append((words, block.embedding))
        first = block.page_start or (self.pages[-1] if self.pages else 0)
        for page in range(first, max(first, block.page_end or first) + 1):
            if page and page not in self.pages:
                self.pages.append(page)


def make_passages(blocks: Sequence[LayoutBlock], *, words: int = PASSAGE_WORDS) -> list[PassageDraft]:
    """The passages over ``blocks`` (reading order): whole blocks, one section and page each, about ``words`` words."""
    passages: list[PassageDraft] = []
    current: PassageDraft | None = None
    for block in blocks:
        size = len(block.text.split())
        new_page = bool(current and current.pages and block.page_start and block.page_start > current.pages[-1])
        if (current is None or current.section != block.section or new_page
                or (current.words and current.words + size > words)):
            current = PassageDraft(section=block.section, heading=block.section_path)
            passages.append(current)
        current.add(block)
    return passages
