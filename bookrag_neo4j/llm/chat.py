"""The chat-model interface every LLM and VLM provider implements, with what they all share.

    completion = await llm.complete(render_prompt("query_classify", question=q), QueryClassification,
                                    stage="query.plan")
    completion.value      # a validated QueryClassification (or the reply text without a response model)
    completion.usage      # Usage(calls=1, prompt_tokens=..., completion_tokens=...)

    value, usage = llm.complete_sync(messages)     # sync facade

Shared by all providers: the response cache, bounded concurrency (a semaphore per model), retries with
exponential backoff on 429/5xx/timeouts (``Retry-After`` honoured), an endpoint that cannot be reached marked
down for ``DOWN_SECONDS`` (every call in between fails at once, so an outage costs seconds, not minutes), JSON
extraction and repair, one re-ask that shows the validation error, usage accounting per stage. Providers
implement only ``_generate``.
Messages are OpenAI-style (:mod:`.messages`); images go in as ``image_url`` content parts.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time
import weakref
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import httpx
from pydantic import BaseModel, ValidationError
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt, wait_random_exponential

from ..errors import EndpointDownError, ModelOutputError, ModelUnavailableError, TransientModelError
from .json_reply import describe_error, parse_reply
from .messages import JsonSchema, Messages
from .prompts import RenderedPrompt, render_prompt
from .reply_cache import ResponseCache, cache_key
from .usage import Usage, UsageLedger, current_ledger

log = logging.getLogger(__name__)

class Completion(NamedTuple):
    """A reply: ``value`` is the validated pydantic object (or text), ``usage`` what the call cost."""

    value: Any
    usage: Usage


@dataclass(frozen=True)
class RawReply:
    """What a provider returns for one request."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


def with_schema_instruction(messages: Messages, schema: JsonSchema) -> Messages:
    """Add the JSON-schema instruction to the system message (or a new one), for servers that cannot enforce it."""
    instruction = render_prompt("json_instruction", schema=json.dumps(schema)).messages[-1]["content"]
    assert isinstance(instruction, str)  # a rendered prompt is text
    out = [m.copy() for m in messages]
    if out and out[0]["role"] == "system" and isinstance(out[0]["content"], str):
        out[0]["content"] = f"{out[0]['content']}\n\n{instruction}"
    else:
        out.insert(0, {"role": "system", "content": instruction})
    return out


def unreachable(exc: BaseException) -> bool:
    """Whether the error, or one that caused it, says no connection could be made (refused, unknown host, no
    route): a failure that retrying within seconds does not cure, unlike a reset or a timeout."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, httpx.ConnectError | ConnectionRefusedError | socket.gaierror):
            return True
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return False


class ChatModel(ABC):
    """Base class of chat models (LLMs and VLMs)."""

    provider: ClassVar[str] = "abstract"
    DOWN_SECONDS: ClassVar[float] = 60.0  # how long an unreachable endpoint is not asked again

    def __init__(
        self,
        model: str,
        *,
        temperature: float = 0.0,
        max_tokens: int = 2048,
        max_concurrency: int = 8,
        max_retries: int = 5,
        retry_wait: float = 1.0,
        cache: ResponseCache | None = None,
    ) -> None:
        self.model = model
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.max_concurrency = max_concurrency
        self.max_retries = max_retries
        self.retry_wait = retry_wait
        self.cache = cache
        self.usage = UsageLedger()  # everything this model was asked, per stage
        self._backoff = wait_random_exponential(multiplier=retry_wait, max=30.0)  # exponential, full jitter
        self._down: tuple[float, str] | None = None  # (until, why) after an EndpointDownError
        self._semaphores: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )

    @property
    def name(self) -> str:
        """``provider:model``, as a build's config records the model it used."""
        return f"{self.provider}:{self.model}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r})"

    @property
    def endpoint(self) -> str | None:
        """The URL this model is asked at (``None`` for an in-process model)."""
        return None

    def describe(self) -> str:
        """``openai model 'gpt-4o-mini' at http://localhost:8000/v1``: what error messages name."""
        return f"{self.provider} model {self.model!r}" + (f" at {self.endpoint}" if self.endpoint else "")

    @property
    def down(self) -> str | None:
        """Why the endpoint is taken for down (it did not answer a connection), or ``None``."""
        if self._down is None or time.monotonic() >= self._down[0]:
            return None
        return self._down[1]

    @abstractmethod
    async def _generate(
        self, messages: Messages, *, json_schema: JsonSchema | None, temperature: float, max_tokens: int
    ) -> RawReply:
        """Send one request. Raise ``TransientModelError`` for what is worth retrying, ``ModelError`` otherwise."""

    async def aclose(self) -> None:  # noqa: B027 - optional hook, most providers hold nothing to release
        """Release connections or model memory."""

    # --- public API ---
    async def complete(
        self,
        messages: Messages | RenderedPrompt,
        response_model: type[BaseModel] | None = None,
        *,
        stage: str = "default",
        temperature: float | None = None,
        max_tokens: int | None = None,
        use_cache: bool = True,
    ) -> Completion:
        """Ask the model; with ``response_model`` the reply is parsed, repaired, re-asked once, validated."""
        if isinstance(messages, RenderedPrompt):
            prompt_id, msgs = f"{messages.name}@{messages.version}", messages.messages
        else:
            prompt_id, msgs = "inline", messages
        schema = response_model.model_json_schema() if response_model else None
        temperature = self.temperature if temperature is None else temperature
        max_tokens = self.max_tokens if max_tokens is None else max_tokens
        key = cache_key(
            provider=self.provider, model=self.model, messages=msgs, schema=schema,
            temperature=temperature, max_tokens=max_tokens, prompt=prompt_id,
        )
        if self.cache is not None and use_cache and (hit := self.cache.get(key)) is not None:
            value: Any = parse_reply(hit[0], response_model) if response_model else hit[0]
            return self._done(stage, Completion(value, Usage(cached_calls=1)))

        usage = Usage()
        reply = await self._call(msgs, schema, temperature, max_tokens)
        usage += Usage(calls=1, prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens)
        value = reply.text
        if response_model is not None:
            try:
                value = parse_reply(reply.text, response_model)
            except (ValidationError, ValueError) as exc:
                log.warning("reply to %s rejected (%s); asking once more", prompt_id, describe_error(exc))
                reask = render_prompt("json_reask", error=describe_error(exc), schema=json.dumps(schema))
                retry_msgs: Messages = [*msgs, {"role": "assistant", "content": reply.text}, *reask.messages]
                reply = await self._call(retry_msgs, schema, temperature, max_tokens)
                usage += Usage(calls=1, prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens)
                try:
                    value = parse_reply(reply.text, response_model)
                except (ValidationError, ValueError) as exc2:
                    self._done(stage, Completion(None, usage))
                    log.error("reply to %s still invalid after a re-ask: %s\nraw reply: %s",
                              prompt_id, describe_error(exc2), reply.text)
                    raise ModelOutputError(
                        f"{self.provider} model {self.model!r} did not return a valid {response_model.__name__}: "
                        f"{describe_error(exc2)}",
                        prompt=prompt_id,
                        raw=reply.text,
                    ) from exc2
        if self.cache is not None and use_cache:
            self.cache.put(key, provider=self.provider, model=self.model, reply=reply.text,
                           prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens)
        return self._done(stage, Completion(value, usage))

    def complete_sync(self, messages: Messages | RenderedPrompt, response_model: type[BaseModel] | None = None,
                      **kwargs: Any) -> Completion:
        """Blocking twin of :meth:`complete` (not from inside a running event loop)."""
        return asyncio.run(self.complete(messages, response_model, **kwargs))

    # --- internals ---
    def _done(self, stage: str, completion: Completion) -> Completion:
        self.usage.record(stage, completion.usage)
        if (ledger := current_ledger()) is not None:
            ledger.record(stage, completion.usage)
        return completion

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if loop not in self._semaphores:
            self._semaphores[loop] = asyncio.Semaphore(self.max_concurrency)
        return self._semaphores[loop]

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, TransientModelError) and exc.retry_after is not None:
            return min(exc.retry_after, 60.0)
        return self._backoff(state)

    async def _call(self, messages: Messages, schema: JsonSchema | None, temperature: float,
                    max_tokens: int) -> RawReply:
        if (why := self.down) is not None:
            raise EndpointDownError(why)
        async with self._semaphore():
            try:
                async for attempt in AsyncRetrying(
                    stop=stop_after_attempt(self.max_retries + 1),
                    wait=self._wait,
                    retry=retry_if_exception_type(TransientModelError),
                    reraise=True,
                    before_sleep=lambda s: log.info("retrying %s after: %s", self.model,
                                                     s.outcome.exception() if s.outcome else None),
                ):
                    with attempt:
                        return await self._generate(
                            messages, json_schema=schema, temperature=temperature, max_tokens=max_tokens
                        )
            except EndpointDownError as exc:
                why = f"{self.describe()} is not reachable ({exc})"
                self._down = (time.monotonic() + self.DOWN_SECONDS,
                              f"{self.describe()} is not reachable (not asked again for {self.DOWN_SECONDS:.0f} s)")
                log.warning("%s; calls fall back without it for the next %.0f s", why, self.DOWN_SECONDS)
                raise EndpointDownError(why) from exc
            except TransientModelError as exc:
                raise ModelUnavailableError(
                    f"{self.describe()} failed after {self.max_retries + 1} attempts: {exc}"
                ) from exc
        raise AssertionError("unreachable")
