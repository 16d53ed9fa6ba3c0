"""The LangChain adapter (with langchain-core's fake chat model) and the scripted chat model."""

from __future__ import annotations

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from bookrag_neo4j.errors import ModelUnavailableError, TransientModelError
from bookrag_neo4j.llm import ScriptedChatModel, render_prompt
from bookrag_neo4j.llm.langchain_chat import LangChainChatModel
from bookrag_neo4j.retrieval.replies import Decomposition, QueryClassification


async def test_langchain_adapter_structured_reply() -> None:
    fake = FakeListChatModel(responses=['{"category": "global"', '{"category": "multi-hop"}'])
    llm = LangChainChatModel(fake)
    first, usage = await llm.complete(render_prompt("query_classify", question="How many tables?"), QueryClassification)
    assert first.category == "global" and usage.calls == 1  # repaired: missing closing brace
    second, _ = await llm.complete(render_prompt("query_classify", question="Which is larger?"), QueryClassification)
    assert second.category == "multi-hop"


def test_langchain_adapter_rejects_other_objects() -> None:
    with pytest.raises(TypeError):
        LangChainChatModel(object())


async def test_scripted_model_retries_transient_errors_and_records_requests() -> None:
    reply = '{"sub_questions": [{"question": "q1", "type": "retrieval"}, {"question": "q2", "type": "synthesis"}]}'
    llm = ScriptedChatModel([TransientModelError("503"), reply])
    value, usage = await llm.complete(render_prompt("query_decompose", question="Which is larger?"), Decomposition)
    assert [s.type for s in value.sub_questions] == ["retrieval", "synthesis"]
    assert len(llm.requests) == 2 and usage.calls == 1
    assert "Which is larger?" in llm.requests[0][-1]["content"]


async def test_scripted_model_gives_up_after_retries() -> None:
    llm = ScriptedChatModel(lambda messages: TransientModelError("always down"), max_retries=1)
    with pytest.raises(ModelUnavailableError):
        await llm.complete([{"role": "user", "content": "hi"}])
    assert len(llm.requests) == 2


def test_sync_facade() -> None:
    value, usage = ScriptedChatModel(["hello"]).complete_sync([{"role": "user", "content": "hi"}])
    assert value == "hello" and usage.calls == 1
