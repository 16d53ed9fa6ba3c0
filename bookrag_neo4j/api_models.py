"""What the machine doors return: typed results for the MCP server's tools (their output schemas) and the web app's
JSON API (its OpenAPI schema), every evidence item with its citation (document, section path, pages)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from .db.reply_cap import UserRows
from .library.cards import DocumentCard
from .library.catalogue import TocEntry
from .retrieval.results import Answer, Citation, Evidence, EvidenceNode, by_document

if TYPE_CHECKING:
    from .library.documents import Document

PAGE_URI = "bookrag://documents/{doc}/pages/{page}"  # the MCP resource template of page images
WARNINGS = ("What may make the result incomplete: e.g. a document in scope whose build was interrupted (until "
            "`bookrag index` runs on it again), or one deleted while the question ran.")


class DocumentInfo(BaseModel):
    """An indexed document and how far each of its layers is built (None: never built)."""

    key: str
    name: str
    title: str = ""
    pages: int | None = None
    indexed_at: str | None = None
    status: str = Field(description="complete, or partial while any layer's build has not completed")
    tree: str
    embeddings: str | None = None
    knowledge_graph: str | None = None
    layout: str | None = None
    content_graph: str | None = None
    card: DocumentCard | None = Field(None, description="What it is: title, issuer, kind, period, date")

    @classmethod
    def of(cls, doc: Document) -> DocumentInfo:
        def state(layer: Any) -> str | None:
            return None if layer is None else str(layer.value)
        return cls(key=doc.key, name=doc.name, title=doc.title, pages=doc.pages, indexed_at=doc.indexed_at,
                   status=doc.status, tree=doc.tree.value, embeddings=state(doc.embeddings), card=doc.card,
                   knowledge_graph=state(doc.graph), layout=state(doc.layout), content_graph=state(doc.g2))


class DocumentList(BaseModel):
    documents: list[DocumentInfo]


class TableOfContents(BaseModel):
    document: str
    key: str
    sections: list[TocEntry]


def page_uri(doc_key: str, page: int) -> str:
    """The resource that shows page ``page`` (1-based) of the document with key ``doc_key``."""
    return PAGE_URI.format(doc=doc_key, page=page)


class Source(BaseModel):
    """Where a piece of evidence is; ``label`` is the citation to quote (document, section path, pages)."""

    label: str
    document: str
    doc_key: str
    node_key: str
    section_path: str = ""
    pages: list[int] = Field(default_factory=list)
    page_image: str | None = Field(None, description="The resource showing its first page as a PNG.")

    @classmethod
    def of(cls, citation: Citation, pages: list[int] | None = None) -> Source:
        if pages is None:
            pages = list(range(citation.page_start, max(citation.page_start, citation.page_end) + 1)) \
                if citation.page_start else []
        return cls(label=citation.label, document=citation.document, doc_key=citation.doc_key,
                   node_key=citation.node_key, section_path=citation.section_path, pages=pages,
                   page_image=page_uri(citation.doc_key, pages[0]) if pages else None)


class EvidenceItem(BaseModel):
    """One piece of evidence, best first, with its citation."""

    rank: int
    kind: str
    title: str = ""
    text: str
    graph_score: float
    text_score: float
    citation: Source

    @classmethod
    def of(cls, node: EvidenceNode) -> EvidenceItem:
        return cls(rank=node.rank, kind=node.kind, title=node.title, text=node.text, graph_score=node.graph_score,
                   text_score=node.text_score, citation=Source.of(node.citation, node.pages))


class DocumentPart(BaseModel):
    """One document's part of the result: the answer's citations from it (ask) and the ranks of its evidence."""

    document: str
    doc_key: str
    citations: list[Source] = Field(default_factory=list, description="ask: its citations, in the answer's order.")
    evidence: list[int] = Field(default_factory=list, description="The ranks of its items in `evidence`.")


def document_parts(evidence: list[EvidenceItem], citations: Sequence[Source] = ()) -> list[DocumentPart]:
    """By document, in the order each is first cited, then first in ``evidence``."""
    return [DocumentPart(document=s.document, doc_key=s.doc_key, citations=[c for c in citations if c.doc_key == s.doc_key],
                         evidence=[e.rank for e in evidence if e.citation.doc_key == s.doc_key])
            for s in by_document([*citations, *(e.citation for e in evidence)])]


class RetrieveResult(BaseModel):
    question: str
    method: str
    category: str | None = None
    count: int | None = Field(None, description="Global COUNT questions: the number of matching nodes.")
    evidence: list[EvidenceItem]
    more_evidence: int = Field(0, description="Evidence items beyond `top_k`, left out.")
    pages: dict[str, list[int]] = Field(description="The pages of the evidence returned, by document.")
    documents: list[DocumentPart] = Field(default_factory=list, description="The citations and evidence by document.")
    warnings: list[str] = Field(default_factory=list, description=WARNINGS)


class AskResult(BaseModel):
    question: str
    asked_as: str | None = Field(None, description="A follow-up as the question it was read as (with an LLM and "
                                                   "history), when that differs.")
    method: str
    category: str | None = None
    answer: str
    extractive: bool = Field(description="True when no LLM wrote the answer: it is the ranked evidence itself.")
    count: int | None = None
    citations: list[Source]
    evidence: list[EvidenceItem]
    more_evidence: int = 0
    documents: list[DocumentPart] = Field(default_factory=list, description="The citations and evidence by document.")
    warnings: list[str] = Field(default_factory=list, description=WARNINGS)


class CypherResult(BaseModel):
    columns: list[str]
    rows: list[dict[str, Any]]
    row_count: int
    truncated: bool = Field(description="True when rows are left out or values cut: the query had more rows than "
                                        "max_rows, or they passed max_bytes (note says which).")
    max_rows: int
    max_bytes: int = Field(description="The most bytes the rows may take as JSON (BOOKRAG_CYPHER_MAX_BYTES).")
    note: str | None = Field(None, description="How the rows were cut, when truncated.")

    @classmethod
    def of(cls, rows: UserRows, max_rows: int, max_bytes: int) -> CypherResult:
        """``rows``, read with ``max_rows + 1`` rows allowed, as at most ``max_rows`` (one more says there were more)."""
        byte_cut = rows.cut_at is not None and rows.cut_at <= max_rows
        more = len(rows) > max_rows or (rows.cut_at is not None and rows.cut_at > max_rows)
        shown = jsonable(rows[:max_rows])
        note = rows.cut if byte_cut else (f"the query had more than {max_rows} rows; the first {max_rows} are "
                                          "shown (add LIMIT or ORDER BY, or pass a larger max_rows)") if more else None
        return cls(columns=list(shown[0]) if shown else [], rows=shown, row_count=len(shown),
                   truncated=byte_cut or more, max_rows=max_rows, max_bytes=max_bytes, note=note)


def jsonable(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows as JSON values: temporal and spatial values become their strings."""
    return json.loads(json.dumps(rows, default=str))


def retrieve_result(evidence: Evidence, method: str, top_k: int) -> RetrieveResult:
    """``evidence`` as a door returns it: its best ``top_k`` items, how many more there were, by document."""
    shown = evidence.model_copy(update={"evidence": evidence.evidence[:top_k]})
    items = [EvidenceItem.of(n) for n in shown.evidence]
    return RetrieveResult(question=evidence.question, method=method,
                          category=evidence.plan.category if evidence.plan else None, count=evidence.count,
                          evidence=items, more_evidence=max(0, len(evidence.evidence) - top_k),
                          pages=shown.pages, documents=document_parts(items), warnings=evidence.warnings)


def ask_result(answer: Answer, method: str, top_k: int) -> AskResult:
    """``answer`` as a door returns it: its citations, its best ``top_k`` evidence items, by document."""
    pages = {n.key: n.pages for n in answer.evidence}
    citations = [Source.of(c, pages.get(c.node_key)) for c in answer.citations]
    items = [EvidenceItem.of(n) for n in answer.evidence[:top_k]]
    return AskResult(question=answer.question, asked_as=answer.asked_as, method=method,
                     category=answer.plan.category if answer.plan else None, answer=answer.text,
                     extractive=answer.extractive, count=answer.count, citations=citations, evidence=items,
                     more_evidence=max(0, len(answer.evidence) - top_k), documents=document_parts(items, citations),
                     warnings=answer.warnings)
