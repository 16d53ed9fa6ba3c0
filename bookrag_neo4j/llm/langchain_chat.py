"""Wrap any LangChain chat model (``langchain_core`` ``BaseChatModel``) as a bookrag chat model.

    from langchain_ollama import ChatOllama
    llm = LangChainChatModel(ChatOllama(model="llama3.1"))

    # or named in settings (BOOKRAG_LLM_PROVIDER=langchain): module:Class and JSON keyword arguments
    chat = load_chat_model("langchain_ollama:ChatOllama", {"model": "llama3.1", "temperature": 0})

The schema goes into the prompt and the reply is parsed, repaired and validated by :class:`ChatModel`, so
any chat model works, whether or not it supports structured output natively.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from ..errors import ConfigurationError, EndpointDownError, ModelError, ModelNotConfiguredError, TransientModelError
from .chat import ChatModel, RawReply, unreachable, with_schema_instruction
from .messages import JsonSchema, Messages


class LangChainChatModel(ChatModel):
    """Adapter from ``BaseChatModel.ainvoke`` to :class:`ChatModel`."""

    provider = "langchain"

    def __init__(self, chat_model: Any, **kwargs: Any) -> None:
        try:
            from langchain_core.language_models import BaseChatModel
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ModelNotConfiguredError("LangChain support needs `pip install langchain-core`") from exc
        if not isinstance(chat_model, BaseChatModel):
            raise TypeError(f"expected a langchain_core BaseChatModel, got {type(chat_model).__name__}")
        name = getattr(chat_model, "model_name", None) or getattr(chat_model, "model", None)
        super().__init__(str(name or type(chat_model).__name__), **kwargs)
        self.chat_model = chat_model

    async def _generate(
        self, messages: Messages, *, json_schema: JsonSchema | None, temperature: float, max_tokens: int
    ) -> RawReply:
        msgs = with_schema_instruction(messages, json_schema) if json_schema is not None else messages
        try:
            reply = await self.chat_model.ainvoke([dict(m) for m in msgs])  # LangChain reads OpenAI-style dicts
        except Exception as exc:  # providers raise their own types; classify by HTTP status when they carry one
            if unreachable(exc):
                raise EndpointDownError(f"{type(exc).__name__}: {exc}") from exc
            if isinstance(exc, TimeoutError | ConnectionError):
                raise TransientModelError(f"{type(exc).__name__}: {exc}") from exc
            status = getattr(exc, "status_code", None) or getattr(getattr(exc, "response", None), "status_code", None)
            if status == 429 or (isinstance(status, int) and status >= 500):
                raise TransientModelError(f"HTTP {status}: {exc}") from exc
            raise ModelError(f"{self.model}: {type(exc).__name__}: {exc}") from exc
        content = reply.content
        text = content if isinstance(content, str) else "".join(
            part.get("text", "") if isinstance(part, dict) else str(part) for part in content
        )
        usage = getattr(reply, "usage_metadata", None) or {}
        return RawReply(text, usage.get("input_tokens", 0), usage.get("output_tokens", 0))


def _invalid_kwargs(exc: Exception) -> str:
    """The reason a model refused its keyword arguments, without their values (they may hold an API key)."""
    if isinstance(exc, ValidationError):
        return "; ".join(f"{'.'.join(map(str, e['loc'])) or '(model)'}: {e['msg']}"
                         for e in exc.errors(include_input=False, include_url=False))
    return f"{type(exc).__name__}: {exc}"


def load_chat_model(spec: str | None, kwargs: Mapping[str, object] | None = None) -> Any:
    """Import the LangChain chat model class ``spec`` (``module:Class``) and instantiate it with ``kwargs``.

    Every way this can go wrong is a :class:`~bookrag_neo4j.errors.ConfigurationError` naming the setting:
    ``spec`` unset or not ``module:Class``, the module not importable, no such class, a class that is not a
    ``BaseChatModel``, or keyword arguments the class rejects.
    """
    if not spec or not spec.strip():
        raise ConfigurationError("BOOKRAG_LLM_PROVIDER=langchain needs BOOKRAG_LANGCHAIN_CHAT=module:Class "
                                 "(e.g. langchain_ollama:ChatOllama)")
    module_name, colon, attr = (part.strip() for part in spec.strip().partition(":"))
    if not colon or not module_name or not attr:
        raise ConfigurationError(f"BOOKRAG_LANGCHAIN_CHAT={spec!r} is not module:Class (e.g. langchain_ollama:ChatOllama)")
    try:
        from langchain_core.language_models import BaseChatModel
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ConfigurationError("BOOKRAG_LLM_PROVIDER=langchain needs `pip install langchain-core`") from exc
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigurationError(f"BOOKRAG_LANGCHAIN_CHAT={spec!r}: cannot import {module_name!r} ({exc}); "
                                 f"install the package that provides it") from exc
    except Exception as exc:  # a module that fails while importing: its own error, as one line
        raise ConfigurationError(f"BOOKRAG_LANGCHAIN_CHAT={spec!r}: importing {module_name!r} failed: "
                                 f"{type(exc).__name__}: {exc}") from exc
    cls: Any = module
    for name in attr.split("."):
        cls = getattr(cls, name, None)
    if cls is None:
        raise ConfigurationError(f"BOOKRAG_LANGCHAIN_CHAT={spec!r}: module {module_name!r} has no {attr!r}")
    if not (isinstance(cls, type) and issubclass(cls, BaseChatModel)):
        raise ConfigurationError(f"BOOKRAG_LANGCHAIN_CHAT={spec!r} is not a LangChain chat model "
                                 f"(a langchain_core BaseChatModel subclass)")
    kwargs = dict(kwargs or {})
    try:
        return cls(**kwargs)
    except Exception as exc:  # pydantic's ValidationError, TypeError, a provider's own error (a missing key)
        names = ", ".join(sorted(kwargs)) or "none"
        raise ConfigurationError(f"{spec} rejected BOOKRAG_LANGCHAIN_KWARGS (given: {names}): "
                                 f"{_invalid_kwargs(exc)}") from exc
