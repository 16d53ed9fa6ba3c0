"""Fully offline chat with a small GGUF model, run in-process by llama.cpp (``llama-cpp-python``).

    llm = LlamaCppChatModel(ensure_local_model("qwen2.5-coder-0.5b", cache_dir))

Structured replies are constrained by a grammar built from the JSON schema, so even a 0.5B model returns
parseable JSON. One request runs at a time (llama.cpp contexts are not thread-safe); generation runs in a
worker thread so the event loop stays free. Text only: images need a VLM.
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path
from typing import Any

from ..errors import ModelError, ModelNotConfiguredError
from .chat import ChatModel, RawReply
from .messages import JsonSchema, Messages

log = logging.getLogger(__name__)


class LlamaCppChatModel(ChatModel):
    """In-process llama.cpp chat model."""

    provider = "llama.cpp"

    def __init__(self, model_path: Path, *, n_ctx: int = 8192, n_threads: int | None = None, **kwargs: Any) -> None:
        kwargs["max_concurrency"] = 1
        super().__init__(model_path.stem, **kwargs)
        self.model_path = model_path
        self.n_ctx = n_ctx
        self.n_threads = n_threads or max(1, os.cpu_count() or 1)
        self._llama: Any = None

    def _load(self) -> Any:
        if self._llama is None:
            try:
                from llama_cpp import Llama
            except ImportError as exc:
                raise ModelNotConfiguredError("the local LLM needs llama-cpp-python: run `make local-model`") from exc
            log.info("loading %s (n_ctx=%d, threads=%d)", self.model_path, self.n_ctx, self.n_threads)
            self._llama = Llama(
                model_path=str(self.model_path), n_ctx=self.n_ctx, n_threads=self.n_threads, verbose=False
            )
        return self._llama

    async def _generate(
        self, messages: Messages, *, json_schema: JsonSchema | None, temperature: float, max_tokens: int
    ) -> RawReply:
        if any(isinstance(m.get("content"), list) for m in messages):
            raise ModelError("the local llama.cpp model reads text only; configure a VLM for images")
        llama = await asyncio.to_thread(self._load)
        kwargs: dict[str, Any] = {"messages": messages, "temperature": temperature, "max_tokens": max_tokens}
        if json_schema is not None:
            kwargs["response_format"] = {"type": "json_object", "schema": json_schema}
        try:
            out = await asyncio.to_thread(llama.create_chat_completion, **kwargs)
        except ValueError as exc:  # e.g. prompt longer than the context window
            raise ModelError(f"llama.cpp: {exc}") from exc
        usage = out.get("usage") or {}
        return RawReply(
            out["choices"][0]["message"]["content"] or "",
            usage.get("prompt_tokens", 0),
            usage.get("completion_tokens", 0),
        )

    async def aclose(self) -> None:
        if self._llama is not None:
            self._llama.close()
            self._llama = None
