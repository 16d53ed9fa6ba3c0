"""The LangChain adapter (with langchain-core's fake chat model), a LangChain chat model named in settings
(BOOKRAG_LLM_PROVIDER=langchain) and its errors, and the scripted chat model."""

from __future__ import annotations

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from bookrag_neo4j.config import Settings
from bookrag_neo4j.doctor import llm_check
from bookrag_neo4j.errors import ConfigurationError, ModelUnavailableError, TransientModelError
from bookrag_neo4j.llm import ScriptedChatModel, build_llm, render_prompt
from bookrag_neo4j.llm.factory import llm_provider
from bookrag_neo4j.llm.langchain_chat import LangChainChatModel
from bookrag_neo4j.retrieval.planner_replies import Decomposition, QueryClassification


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


# --- any LangChain chat model named in settings (BOOKRAG_LLM_PROVIDER=langchain) ---
FAKE = "langchain_core.language_models.fake_chat_models:FakeListChatModel"


async def test_settings_select_a_langchain_chat_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOOKRAG_LLM_PROVIDER", "langchain")
    monkeypatch.setenv("BOOKRAG_LANGCHAIN_CHAT", FAKE)
    monkeypatch.setenv("BOOKRAG_LANGCHAIN_KWARGS", '{"responses": ["{\\"category\\": \\"global\\"}", "{\\"ok\\": true}"]}')
    settings = Settings(llm_cache=False, llm_max_retries=0)
    assert llm_provider(settings) == "langchain"
    assert settings.models.langchain_kwargs == {"responses": ['{"category": "global"}', '{"ok": true}']}  # JSON from the env
    llm = build_llm(settings)
    assert isinstance(llm, LangChainChatModel) and isinstance(llm.chat_model, FakeListChatModel)
    assert llm.max_retries == 0  # the common model settings apply
    reply, usage = await llm.complete(render_prompt("query_classify", question="How many tables?"), QueryClassification)
    assert reply.category == "global" and usage.calls == 1
    check = await llm_check(settings)  # `bookrag doctor` builds its own from the settings and asks it once
    assert check.ok and check.detail.startswith("langchain FakeListChatModel answers"), check


@pytest.mark.parametrize(("chat", "kwargs", "message"), [
    (None, {}, "needs BOOKRAG_LANGCHAIN_CHAT=module:Class"),
    ("FakeListChatModel", {}, "is not module:Class"),
    ("no_such_module_xyz:ChatX", {}, "cannot import 'no_such_module_xyz'"),
    ("langchain_core.language_models.fake_chat_models:NoSuchModel", {}, "has no 'NoSuchModel'"),
    ("json:loads", {}, "is not a LangChain chat model"),
    ("langchain_core.messages:AIMessage", {}, "is not a LangChain chat model"),
    (FAKE, {}, "rejected BOOKRAG_LANGCHAIN_KWARGS (given: none): responses: Field required"),
    (FAKE, {"responses": 5, "api_key": "sk-secret"}, "(given: api_key, responses): responses: Input should be a valid list"),
])
async def test_a_wrong_langchain_setting_is_a_clear_error(chat: str | None, kwargs: dict, message: str) -> None:
    settings = Settings(llm_provider="langchain", langchain_chat=chat, langchain_kwargs=kwargs, llm_cache=False)
    with pytest.raises(ConfigurationError) as caught:
        build_llm(settings)
    assert message in str(caught.value) and "sk-secret" not in str(caught.value)
    check = await llm_check(settings)  # the doctor's llm line fails alone, with the same reason
    assert not check.ok and check.detail == f"langchain: {caught.value}"


async def test_doctor_points_at_the_provider_when_only_the_class_is_set() -> None:
    check = await llm_check(Settings(llm_provider="none", langchain_chat=FAKE))
    assert not check.ok and "LLM-free" in check.detail and "BOOKRAG_LLM_PROVIDER=langchain" in check.detail
