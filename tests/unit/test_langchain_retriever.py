"""``BookRAGRetriever`` without a server: the Document an evidence node becomes, the options it checks up front,
and langchain-core staying optional at ``import bookrag_neo4j``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

import bookrag_neo4j
from bookrag_neo4j import BookRAG, Settings
from bookrag_neo4j.errors import PlanError
from bookrag_neo4j.langchain import BookRAGRetriever, format_documents, to_document
from bookrag_neo4j.retrieval.results import EvidenceNode

NODE = EvidenceNode(key="n1", doc_key="d1", document="report.pdf", kind="paragraph", title="Results",
                    text="Net sales were $178 billion.", page_start=24, page_end=25,
                    section_path="Item 7 > Results of Operations", graph_score=0.25, text_score=0.5, rank=1)


def test_an_evidence_node_becomes_a_cited_document() -> None:
    doc = to_document(NODE, "bm25")
    assert doc.page_content == "Net sales were $178 billion." and doc.id == "n1"
    assert doc.metadata == {
        "source": "report.pdf", "document": "report.pdf", "doc_key": "d1", "node_key": "n1",
        "section_path": "Item 7 > Results of Operations", "page_start": 24, "page_end": 25, "pages": [24, 25],
        "kind": "paragraph", "title": "Results", "rank": 1, "graph_score": 0.25, "text_score": 0.5,
        "method": "bm25", "bbox": None, "citation": "report.pdf, Item 7 > Results of Operations, pp. 24–25",
        "warnings": [],
    }
    warned = to_document(NODE, "bm25", ("report.pdf: the graph build is incomplete",))
    assert warned.metadata["warnings"] == ["report.pdf: the graph build is incomplete"]
    assert doc.metadata["citation"] == NODE.citation.label
    untitled = to_document(NODE.model_copy(update={"text": "", "title": "Figure 2"}), "layout")
    assert untitled.page_content == "Figure 2"  # a node without text (an image) shows its title
    assert format_documents([doc, untitled]) == (
        "[1] report.pdf, Item 7 > Results of Operations, pp. 24–25\nNet sales were $178 billion.\n\n"
        "[2] report.pdf, Item 7 > Results of Operations, pp. 24–25\nFigure 2")


def test_options_are_checked_before_any_retrieval() -> None:
    rag = BookRAG(Settings())
    with pytest.raises(PlanError, match="unknown method 'nope'; known: bookrag"):
        BookRAGRetriever(rag=rag, method="nope")
    with pytest.raises(ValidationError):
        BookRAGRetriever(rag=rag, top_k=0)
    with pytest.raises(ValidationError, match="instance of BookRAG"):
        BookRAGRetriever(rag="not a BookRAG")
    retriever = BookRAGRetriever(rag=rag, docs="report.pdf", method="bm25", top_k=3)
    with pytest.raises(PlanError, match="unknown method"):
        retriever.invoke("q", method="nope")
    with pytest.raises(ValueError, match="k must be at least 1"):
        retriever.invoke("q", top_k=0)


def test_langchain_core_stays_optional_at_import() -> None:
    """Only the retriever module and the chat adapter import langchain-core, and no module imports the retriever:
    `import bookrag_neo4j` (and the SDK) never needs it."""
    root = Path(bookrag_neo4j.__file__).parent
    users = {p.relative_to(root).as_posix() for p in root.rglob("*.py")
             if re.search(r"^\s*(from|import) langchain_core\b", p.read_text(encoding="utf-8"), re.MULTILINE)}
    assert users == {"langchain.py", "llm/langchain_chat.py"}, users
    chat = (root / "llm" / "langchain_chat.py").read_text(encoding="utf-8")
    assert not re.search(r"^(from|import) langchain_core", chat, re.MULTILINE)  # inside functions only
    retriever = re.compile(r"^\s*from \.+langchain import|bookrag_neo4j\.langchain import", re.MULTILINE)
    importers = [p for p in root.rglob("*.py")
                 if p.name != "langchain.py" and retriever.search(p.read_text(encoding="utf-8"))]
    assert importers == [], importers
