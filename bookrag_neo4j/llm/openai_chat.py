"""OpenAI-compatible chat provider (OpenAI, vLLM, Ollama, llama.cpp's server, LM Studio, ...).

    llm = OpenAIChatModel("gpt-4o-mini")                                        # OPENAI_API_KEY
    llm = OpenAIChatModel("qwen3-8b", base_url="http://localhost:8000/v1")      # vLLM
    llm = OpenAIChatModel("llama3.1", base_url="http://localhost:11434/v1")     # Ollama

Structured output: ``json_schema`` where the server supports it; when the server rejects that (HTTP 400),
``json_object`` (JSON mode), then plain text with the schema in the prompt. In ``auto`` mode the first mode
that works is remembered. Retries are done by :class:`ChatModel` (the client's own are off); a refused
connection or an unknown host is an :class:`~bookrag_neo4j.errors.EndpointDownError`, not retried.
"""

from __future__ import annotations

import logging
from typing import Any, cast

import openai
from openai.types.chat import ChatCompletionMessageParam

from ..errors import EndpointDownError, ModelError, TransientModelError
from .chat import ChatModel, RawReply, unreachable, with_schema_instruction
from .messages import JsonSchema, Messages

log = logging.getLogger(__name__)

MODES = ("json_schema", "json_object", "text")


def _retry_after(exc: openai.APIStatusError) -> float | None:
    value = exc.response.headers.get("retry-after") if exc.response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


class OpenAIChatModel(ChatModel):
    """Chat completions over the OpenAI HTTP API."""

    provider = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 120.0,
        structured_output: str = "auto",
        **kwargs: Any,
    ) -> None:
        super().__init__(model, **kwargs)
        self.base_url = base_url
        self._client = openai.AsyncOpenAI(
            base_url=base_url, api_key=api_key or "not-needed", timeout=timeout, max_retries=0
        )
        self._modes = list(MODES) if structured_output == "auto" else [structured_output]

    @property
    def endpoint(self) -> str:
        return str(self._client.base_url).rstrip("/")

    async def aclose(self) -> None:
        await self._client.close()

    async def _generate(
        self, messages: Messages, *, json_schema: JsonSchema | None, temperature: float, max_tokens: int
    ) -> RawReply:
        modes = self._modes if json_schema is not None else ["text"]
        for i, mode in enumerate(modes):
            request: dict[str, Any] = {"model": self.model, "temperature": temperature, "max_tokens": max_tokens}
            msgs = messages
            if mode == "json_schema":
                assert json_schema is not None
                request["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": json_schema.get("title", "reply"), "schema": json_schema},
                }
            elif json_schema is not None:
                msgs = with_schema_instruction(messages, json_schema)
                if mode == "json_object":
                    request["response_format"] = {"type": "json_object"}
            try:
                response = await self._client.chat.completions.create(
                    messages=cast(list[ChatCompletionMessageParam], msgs), **request
                )
            except openai.BadRequestError as exc:
                if i + 1 < len(modes):
                    log.info("%s rejected structured output %r (%s); trying %r", self.base_url or "OpenAI",
                             mode, exc.message, modes[i + 1])
                    continue
                raise ModelError(f"{self.model}: request rejected: {exc.message}") from exc
            except openai.RateLimitError as exc:
                raise TransientModelError(f"rate limited (429): {exc.message}", _retry_after(exc)) from exc
            except openai.APIStatusError as exc:
                if exc.status_code >= 500 or exc.status_code in (408, 409):
                    raise TransientModelError(f"HTTP {exc.status_code}: {exc.message}", _retry_after(exc)) from exc
                raise ModelError(f"{self.model}: HTTP {exc.status_code}: {exc.message}") from exc
            except openai.APITimeoutError as exc:
                raise TransientModelError(f"{type(exc).__name__}: {exc}") from exc
            except openai.APIConnectionError as exc:
                if unreachable(exc):
                    raise EndpointDownError(f"{type(exc.__cause__).__name__}: {exc.__cause__}") from exc
                raise TransientModelError(f"{type(exc).__name__}: {exc}") from exc
            if json_schema is not None and self._modes != [mode]:
                self._modes = list(modes[i:])  # remember what this server supports
            usage = response.usage
            return RawReply(
                text=response.choices[0].message.content or "",
                prompt_tokens=(usage.prompt_tokens or 0) if usage else 0,
                completion_tokens=(usage.completion_tokens or 0) if usage else 0,
            )
        raise AssertionError("unreachable")
