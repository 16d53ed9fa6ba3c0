"""Wrap any LangChain chat model (``langchain_core`` ``BaseChatModel``) as a bookrag chat model.

    from langchain_ollama import ChatOllama
    llm = LangChainChatModel(ChatOllama(model="llama3.1"))

The schema goes into the prompt and the reply is parsed, repaired and validated by :class:`ChatModel`, so
any chat model works, whether or not it supports structured output natively.
"""

from __future__ import annotations

from typing import Any

from ..errors import ModelError, ModelNotConfiguredError, TransientModelError
from .chat import ChatModel, Messages, RawReply, with_schema_instruction


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
        self, messages: Messages, *, json_schema: dict[str, Any] | None, temperature: float, max_tokens: int
    ) -> RawReply:
        msgs = with_schema_instruction(messages, json_schema) if json_schema is not None else messages
        try:
            reply = await self.chat_model.ainvoke(msgs)
        except (TimeoutError, ConnectionError) as exc:
            raise TransientModelError(f"{type(exc).__name__}: {exc}") from exc
        except Exception as exc:  # providers raise their own types; classify by HTTP status when they carry one
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
