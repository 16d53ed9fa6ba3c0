"""LangChain: ``BookRAGRetriever`` in a real LCEL chain (prompt | model | parser) over real retrieval on the ACL
paper, with a scripted chat model that reads its prompt; and a LangChain chat model named in settings answering
a question end to end."""

from __future__ import annotations

import asyncio
import re

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnablePassthrough
from pydantic import Field

from bookrag_neo4j import BookRAG
from bookrag_neo4j.errors import PlanError
from bookrag_neo4j.langchain import BookRAGRetriever, format_documents
from bookrag_neo4j.llm import Models

from ..helpers.partial import INCOMPLETE, interrupted_graph_document
from ..helpers.pdfs import ACL_PAPER
from ..helpers.timeouts import LONG_TEST

pytestmark = pytest.mark.timeout(LONG_TEST)

QUESTION = "Which model performs best in the closed-book setting?"
PROMPT = ChatPromptTemplate.from_messages([
    ("system", "Answer from the numbered context only and cite it."),
    ("human", "Context:\n{context}\n\nQuestion: {question}"),
])


class CitingChatModel(BaseChatModel):
    """A scripted chat model: records each prompt and replies with the first source its context cites."""

    prompts: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "citing-test-model"

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager=None,
                  **kwargs) -> ChatResult:
        prompt = "\n".join(str(m.content) for m in messages)
        self.prompts.append(prompt)
        first = re.search(r"^\[1\] (.+)$", prompt, re.MULTILINE)
        reply = f"See {first.group(1)}" if first else "No context."
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=reply))])


def chain_of(retriever: BookRAGRetriever, model: BaseChatModel):
    return ({"context": retriever | format_documents, "question": RunnablePassthrough()}
            | PROMPT | model | StrOutputParser())


@pytest.fixture
def rag(settings, offline_models: Models) -> BookRAG:
    return BookRAG(settings, models=offline_models, use_llm=False)


def test_retriever_in_a_sync_lcel_chain(rag: BookRAG, acl_paper: str) -> None:
    retriever = BookRAGRetriever(rag=rag, docs=acl_paper, method="hybrid", top_k=4)
    docs = retriever.invoke(QUESTION)
    assert 1 <= len(docs) <= 4
    for rank, doc in enumerate(docs, 1):
        meta = doc.metadata
        assert meta["document"] == meta["source"] == ACL_PAPER.name and meta["doc_key"] == acl_paper
        assert doc.id == meta["node_key"] and meta["method"] == "hybrid" and meta["rank"] == rank
        assert meta["page_start"] >= 1 and meta["pages"] and set(meta["pages"]) <= set(range(1, 25))
        pages = f"p. {meta['page_start']}" if meta["page_start"] == meta["page_end"] else f"pp. {meta['page_start']}–"
        assert meta["citation"].startswith(ACL_PAPER.name) and pages in meta["citation"]
        assert doc.page_content.strip() and isinstance(meta["section_path"], str)
    assert any(d.metadata["section_path"] and d.metadata["section_path"] in d.metadata["citation"] for d in docs)

    model = CitingChatModel()
    answer = chain_of(retriever, model).invoke(QUESTION)
    (prompt,) = model.prompts
    assert QUESTION in prompt and all(d.page_content in prompt for d in docs)  # the retrieved evidence, verbatim
    assert answer == f"See {docs[0].metadata['citation']}"

    # method= passes through: per call, and as the retriever's own; the same evidence as the SDK's
    bm25 = retriever.invoke(QUESTION, method="bm25", top_k=10)
    sdk = rag.retrieve(QUESTION, doc=acl_paper, method="bm25")
    assert [d.metadata["node_key"] for d in bm25] == [n.key for n in sdk.nodes] and sdk.plan.method == "bm25"
    assert {d.metadata["method"] for d in bm25} == {"bm25"}
    layout = BookRAGRetriever(rag=rag, docs=acl_paper, method="layout-vanilla", top_k=4).invoke(QUESTION)
    assert {d.metadata["kind"] for d in layout}.isdisjoint({"passage"}) and {d.metadata["kind"] for d in docs} == {"passage"}
    # batch runs the calls on threads: each on its own connection
    batched = retriever.batch([QUESTION, "What does Table 3 show?"])
    assert [d.id for d in batched[0]] == [d.id for d in docs] and batched[1] and batched[1] != batched[0]

    with pytest.raises(PlanError, match="unknown method 'nope'.*bm25"):
        BookRAGRetriever(rag=rag, method="nope")
    with pytest.raises(PlanError, match="unknown method"):
        retriever.invoke(QUESTION, method="nope")


async def test_retriever_in_an_async_lcel_chain(rag: BookRAG, acl_paper: str) -> None:
    retriever = BookRAGRetriever(rag=rag, docs=[ACL_PAPER.name], method="bm25", top_k=3)
    try:
        docs = await retriever.ainvoke(QUESTION)
        assert len(docs) == 3 and {d.metadata["doc_key"] for d in docs} == {acl_paper}
        model = CitingChatModel()
        answer = await chain_of(retriever, model).ainvoke(QUESTION)
        assert answer == f"See {docs[0].metadata['citation']}"
        assert all(d.page_content in model.prompts[0] for d in docs)
        dense = await retriever.ainvoke(QUESTION, method="dense")
        assert {d.metadata["method"] for d in dense} == {"dense"} and [d.id for d in dense] != [d.id for d in docs]
    finally:
        await rag.aclose()


def test_a_langchain_chat_model_named_in_settings_answers(settings, offline_models: Models, acl_paper: str) -> None:
    reply = '{"answer": "The fine-tuned model does best [1].", "sources": [1]}'
    configured = settings.replace(
        llm_provider="langchain", llm_cache=False,
        langchain_chat="langchain_core.language_models.fake_chat_models:FakeListChatModel",
        langchain_kwargs={"responses": [reply]},
    )
    models = Models.from_settings(configured, embedder=offline_models.embedder, reranker=offline_models.reranker)
    assert models.llm is not None and models.llm.provider == "langchain"
    answer = BookRAG(configured, models=models).ask(QUESTION, doc=acl_paper, method="bm25")
    assert not answer.extractive and answer.text == "The fine-tuned model does best [1]."
    assert answer.citations == [answer.evidence[0].citation]
    assert models.llm.usage.by_stage()["answer.reduce"].calls == 1


async def test_retrieved_documents_carry_the_sdks_warnings(rag: BookRAG, conn, settings, offline_models: Models,
                                                          schema, acl_paper: str, tmp_path) -> None:
    """Over a document whose graph build was interrupted, every Document the retriever returns (sync and async)
    carries the SDK's warning in its metadata; over a complete one, none."""
    async with interrupted_graph_document(conn, settings, offline_models, tmp_path) as (key, name):
        retriever = BookRAGRetriever(rag=rag, docs=name, method="bm25", top_k=3)
        try:
            expected = (await rag.aretrieve("Who leads Acme Interrupted?", key, method="bm25")).warnings
            assert any(INCOMPLETE in w for w in expected), expected
            docs = await retriever.ainvoke("Who leads Acme Interrupted?")
            synced = await asyncio.to_thread(retriever.invoke, "Who leads Acme Interrupted?")
            for found in (docs, synced):
                assert found and all(d.metadata["warnings"] == expected for d in found), [d.metadata for d in found]
            clean = await retriever.ainvoke(QUESTION, docs=acl_paper)
            assert clean and all(d.metadata["warnings"] == [] for d in clean)
        finally:
            await rag.aclose()
