"""BookRAG as a LangChain retriever: ranked evidence as ``Document``s that carry their citations.

    from bookrag_neo4j import BookRAG
    from bookrag_neo4j.langchain import BookRAGRetriever, format_documents

    retriever = BookRAGRetriever(rag=BookRAG.from_env(), docs="report.pdf", method="hybrid", top_k=5)
    docs = retriever.invoke("What were net sales in 2017?")           # or: await retriever.ainvoke(...)
    docs[0].metadata["citation"]              # 'report.pdf, Item 7 > Results of Operations, p. 24'
    retriever.invoke("...", method="bm25")    # another method of rag.methods() for one call
    chain = {"context": retriever | format_documents, "question": RunnablePassthrough()} | prompt | llm

Each ``Document`` holds an evidence node's text as ``page_content``, its key as ``id`` and the citation in ``metadata``
(``source``, ``doc_key``, ``node_key``, ``section_path``, pages, ``rank``, scores, ``bbox``, ``citation``: the label),
with the retrieval's ``warnings`` (e.g. a document in scope whose build was interrupted: its evidence may be missing).
``invoke`` works on its own connection each call (safe from threads, e.g. ``retriever.batch``); ``ainvoke`` uses the
``BookRAG``'s own async client (close it with ``await rag.aclose()`` or ``async with``). Needs ``langchain-core``
(``pip install 'bookrag-neo4j[langchain]'``); ``import bookrag_neo4j`` does not. See docs/langchain.md.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from pydantic import ConfigDict, Field, PrivateAttr, field_validator

from .methods import get_method
from .retrieval.results import Evidence, EvidenceNode
from .sdk import BookRAG

try:
    from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("bookrag_neo4j.langchain needs langchain-core: pip install 'bookrag-neo4j[langchain]'") from exc

__all__ = ["BookRAGRetriever", "format_documents", "to_document"]

Scope = str | list[str] | None  # one document (key, key prefix or file name), several, or the whole library


def to_document(node: EvidenceNode, method: str, warnings: Sequence[str] = ()) -> Document:
    """One evidence node as a LangChain ``Document``: its text, and its citation in the metadata; ``warnings``:
    the retrieval's (:attr:`Evidence.warnings`), which every document of it carries."""
    citation = node.citation
    return Document(
        id=node.key,
        page_content=node.text or node.title,
        metadata={
            "source": node.document, "document": node.document, "doc_key": node.doc_key, "node_key": node.key,
            "section_path": node.section_path, "page_start": node.page_start, "page_end": node.page_end,
            "pages": node.pages, "kind": node.kind, "title": node.title, "rank": node.rank,
            "graph_score": node.graph_score, "text_score": node.text_score, "method": method,
            "bbox": node.bbox, "citation": citation.label, "warnings": list(warnings),
        },
    )


def format_documents(docs: Sequence[Document]) -> str:
    """The documents as a prompt's context: each one numbered, under its citation label."""
    return "\n\n".join(f"[{i}] {doc.metadata.get('citation', '')}\n{doc.page_content}" for i, doc in enumerate(docs, 1))


class BookRAGRetriever(BaseRetriever):
    """A LangChain ``BaseRetriever`` over :meth:`BookRAG.aretrieve`, sync and async.

    ``docs``: one document (key, key prefix or file name), several, or ``None`` for the whole library;
    ``method``: one of ``rag.methods()`` (an unknown name is a ``PlanError``); ``top_k``: keep at most this many
    of the ranked evidence nodes (the SDK's, CLI's and MCP's name). ``invoke``/``ainvoke`` take ``method=``,
    ``docs=`` and ``top_k=`` for one call.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    rag: BookRAG
    docs: Scope = None
    method: str = "bookrag"
    top_k: int | None = Field(None, gt=0)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @field_validator("method")
    @classmethod
    def _known_method(cls, name: str) -> str:
        return get_method(name).name  # PlanError naming the known methods

    def _documents(self, evidence: Evidence, method: str, top_k: int | None) -> list[Document]:
        nodes = evidence.evidence if top_k is None else evidence.evidence[:top_k]
        return [to_document(node, method, evidence.warnings) for node in nodes]

    def _options(self, method: str | None, docs: Scope, top_k: int | None) -> tuple[str, Scope, int | None]:
        """The call's method, documents and top_k: those given for this call, else the retriever's."""
        method = get_method(method).name if method is not None else self.method
        if top_k is not None and top_k < 1:
            raise ValueError(f"top_k must be at least 1, got {top_k}")
        return method, self.docs if docs is None else docs, self.top_k if top_k is None else top_k

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, method: str | None = None,
        docs: Scope = None, top_k: int | None = None,
    ) -> list[Document]:
        method, scope, top_k = self._options(method, docs, top_k)
        with self._lock:  # the models are built once, whichever thread asks first
            models = self.rag.models
        # A BookRAG of its own: the sync facade runs its own event loop and closes its driver after the call,
        # so concurrent calls (batch, RunnableParallel) never share (or close) one driver.
        own = BookRAG(self.rag.settings, models=models, use_llm=self.rag.use_llm)
        evidence = own.retrieve(query, scope, method=method)
        return self._documents(evidence, method, top_k)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, method: str | None = None,
        docs: Scope = None, top_k: int | None = None,
    ) -> list[Document]:
        method, scope, top_k = self._options(method, docs, top_k)
        evidence = await self.rag.aretrieve(query, scope, method=method)
        return self._documents(evidence, method, top_k)
