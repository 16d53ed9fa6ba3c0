"""The content graph's nodes: the layout layer's passages, and the tables and images with their captions and the
text around them, in reading order, each with a summary and keywords (G²-Reader §3.2.1).

    nodes = [ContentNode(**row) for row in rows]          # rows: cypher/content/nodes.cypher, reading order
    attrs = offline_attributes(nodes, keywords=8)          # without a model: Attributes(summary, keywords)
    attrs[0].summary, attrs[0].keywords, attrs[0].embed_text

Offline, the summary is the node's section path and its caption, or its first sentence; the keywords are its
top TF-IDF terms and noun-phrase-like n-grams over the document's content nodes (the layout layer's keyword
extractor). With an LLM, both come from the paper's node prompt (``prompts/g2_node.md``; :mod:`.llm`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..text.keywords import keywords_by_passage

CONTEXT_WORDS = 80  # words of the text before and after a table or image that its node carries
SUMMARY_CHARS = 300
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\"'])")


@dataclass(frozen=True)
class ContentNode:
    """A content node as the content-graph stage reads it (``cypher/content/nodes.cypher``)."""

    key: str
    kind: str  # passage, table, image
    text: str  # a passage's text; a table's Markdown or an image's text
    caption: str = ""
    section_path: str = ""
    before: str = ""  # a table's or image's surrounding text (its passage's blocks before and after it)
    after: str = ""
    page: int = 0
    embedding: list[float] | None = field(default=None, repr=False)

    @property
    def content(self) -> str:
        """What the node holds, as a model reads it: caption, text and, for a table or image, the text around it."""
        if self.kind == "passage":
            return self.text
        around = [_last_words(self.before), self.caption, self.text, _first_words(self.after)]
        return "\n".join(part for part in around if part)


@dataclass(frozen=True)
class Attributes:
    """A node's summary and keywords (the paper's attr_i = (s_i, k_i))."""

    summary: str
    keywords: list[str]

    @property
    def embed_text(self) -> str:
        """s_i ⊕ k_i, what Enc(summary ⊕ keywords) encodes (the reference code's ``summary keywords: ...``)."""
        return f"{self.summary} keywords: {', '.join(self.keywords)}"


def _first_words(text: str, n: int = CONTEXT_WORDS) -> str:
    return " ".join(text.split()[:n])


def _last_words(text: str, n: int = CONTEXT_WORDS) -> str:
    return " ".join(text.split()[-n:])


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` (at most ``SUMMARY_CHARS`` characters)."""
    flat = " ".join(text.split())
    return _SENTENCE_END.split(flat, maxsplit=1)[0][:SUMMARY_CHARS]


def offline_summary(node: ContentNode) -> str:
    """Section path + caption, or + first sentence (a caption-less table or image: the text before it)."""
    lead = node.caption or first_sentence(node.text if node.kind == "passage" else node.before or node.text)
    return " > ".join(part for part in (node.section_path, lead) if part)[:SUMMARY_CHARS * 2]


def offline_attributes(nodes: Sequence[ContentNode], *, keywords: int = 8) -> list[Attributes]:
    """Summaries and keywords for ``nodes`` without a model (IDF over these nodes)."""
    found = keywords_by_passage([n.content for n in nodes], top=keywords)
    return [Attributes(summary=offline_summary(n), keywords=k) for n, k in zip(nodes, found, strict=True)]
