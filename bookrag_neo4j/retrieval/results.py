"""What retrieval returns: evidence nodes with their scores and citations, the plan, and a trace per operator.

    evidence = await rag.aretrieve("What were net sales in 2017?", doc="annual-report-2017.pdf")
    evidence.evidence[0].citation.label   # 'annual-report-2017.pdf, Item 7 > Results of Operations, p. 24'
    answer.by_document()                   # [DocumentShare(document='a.pdf', doc_key=..., numbers=[1, 3]), ...]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pydantic import AliasChoices, BaseModel, Field

from .plan import Plan, TraceStep


class Citation(BaseModel):
    """Where a piece of evidence is: document, section path, pages, and its box for highlighting."""

    document: str
    doc_key: str
    node_key: str
    section_path: str = ""
    page_start: int = 0
    page_end: int = 0
    bbox: list[float] | None = None

    @property
    def label(self) -> str:
        """What to quote: 'doc.pdf, section path, p. N'."""
        return ", ".join(part for part in (self.document, self.short_label) if part)

    @property
    def short_label(self) -> str:
        """The label without the document ('section path, p. N'), for a list under the document's heading."""
        pages = (f"p. {self.page_start}" if self.page_start == self.page_end
                 else f"pp. {self.page_start}–{self.page_end}")
        return ", ".join(part for part in (self.section_path, pages) if part)


class EvidenceNode(BaseModel):
    """A unit chosen as evidence (a tree node, or a chunk for the chunk baselines), with its scores."""

    key: str
    doc_key: str
    document: str
    kind: str
    title: str = ""
    text: str = ""
    page_start: int = 0
    page_end: int = 0
    section_path: str = ""
    bbox: list[float] | None = None
    order: int = 0
    page_list: list[int] = Field(default_factory=list)  # pages of a merged cross-page unit; else the range
    graph_score: float = 0.0
    text_score: float = 0.0
    rank: int = 0

    @property
    def citation(self) -> Citation:
        return Citation(document=self.document, doc_key=self.doc_key, node_key=self.key,
                        section_path=self.section_path, page_start=self.page_start, page_end=self.page_end,
                        bbox=self.bbox)

    @property
    def pages(self) -> list[int]:
        if self.page_list:
            return list(self.page_list)
        return list(range(self.page_start, max(self.page_start, self.page_end) + 1)) if self.page_start else []


class FromDocument(Protocol):
    """What names the document it comes from."""

    @property
    def document(self) -> str: ...

    @property
    def doc_key(self) -> str: ...


class DocumentShare(BaseModel):
    """One document's part of a list of citations or evidence: its numbers (1-based) in that list."""

    document: str
    doc_key: str
    numbers: list[int] = Field(default_factory=list)


def by_document(items: Sequence[FromDocument]) -> list[DocumentShare]:
    """The documents ``items`` come from, in the order each first appears, with the numbers of its items."""
    shares: dict[str, DocumentShare] = {}
    for number, item in enumerate(items, 1):
        shares.setdefault(item.doc_key, DocumentShare(document=item.document, doc_key=item.doc_key)
                          ).numbers.append(number)
    return list(shares.values())


class EvidenceGroup(BaseModel):
    """Multi-hop: the evidence keys one sub-question retrieved."""

    question: str
    keys: list[str] = Field(default_factory=list)


class Evidence(BaseModel):
    """Retrieval without synthesis: ranked evidence nodes, the plan and the trace."""

    question: str
    evidence: list[EvidenceNode] = Field(default_factory=list, validation_alias=AliasChoices("evidence", "nodes"))
    plan: Plan | None = None
    trace: list[TraceStep] = Field(default_factory=list)
    count: int | None = None  # global COUNT questions: the number of matching nodes
    counted: int | None = None  # and how many of the first nodes are counted ones (the rest is context)
    count_by_document: dict[str, int] = Field(default_factory=dict)  # the COUNT's number by document key
    groups: list[EvidenceGroup] = Field(default_factory=list)  # multi-hop: the evidence of each sub-question
    seeds: list[str] = Field(default_factory=list)  # the graph entities the question's entities linked to
    warnings: list[str] = Field(default_factory=list)  # e.g. a document in scope whose graph build is incomplete

    @property
    def nodes(self) -> list[EvidenceNode]:
        """The former name of :attr:`evidence` (as :class:`Answer` calls it), kept so that older code runs."""
        return self.evidence

    @property
    def pages(self) -> dict[str, list[int]]:
        """Pages of the evidence by document."""
        out: dict[str, set[int]] = {}
        for node in self.evidence:
            out.setdefault(node.document, set()).update(node.pages)
        return {doc: sorted(pages) for doc, pages in out.items()}


class Turn(BaseModel):
    """One earlier question of a conversation: what was asked, the answer's text and the documents it cited."""

    question: str = Field(min_length=1, max_length=20_000, description="The question as asked.")
    answer: str = Field("", max_length=20_000, description="The answer's text (the start is enough).")
    documents: list[str] = Field(default_factory=list, max_length=50,
                                 description="Keys of the documents the answer cited.")


class Answer(BaseModel):
    """The answer to a question, with the citations of its evidence."""

    question: str
    text: str
    citations: list[Citation] = Field(default_factory=list)
    evidence: list[EvidenceNode] = Field(default_factory=list)
    asked_as: str | None = None  # a follow-up read as a question of its own (with an LLM), when that differs
    plan: Plan | None = None
    trace: list[TraceStep] = Field(default_factory=list)
    extractive: bool = False  # True when no LLM wrote it: the ranked evidence passages themselves
    count: int | None = None  # global COUNT questions: the number of matching nodes
    counted: int | None = None  # and how many of the first nodes are counted ones (the rest is context)
    groups: list[EvidenceGroup] = Field(default_factory=list)  # multi-hop: the evidence of each sub-question
    seeds: list[str] = Field(default_factory=list)  # the graph entities the question's entities linked to
    warnings: list[str] = Field(default_factory=list)  # e.g. a document in scope whose graph build is incomplete

    def by_document(self) -> list[DocumentShare]:
        """The citations' documents, each with the numbers (1-based) of its citations."""
        return by_document(self.citations)

    def turn(self) -> Turn:
        """This answer as a conversation's turn, for a follow-up's ``history``."""
        return Turn(question=self.question, answer=self.text,
                    documents=list(dict.fromkeys(c.doc_key for c in self.citations)))
