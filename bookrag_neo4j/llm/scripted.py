"""A chat model that replays a script, for tests and offline demos of code that calls an LLM.

    llm = ScriptedChatModel(['{"category": "global"}'])                  # replies in order
    llm = ScriptedChatModel(lambda messages: '{"category": "single-hop"}')  # or computed from the request
    llm.requests   # every request it received

A script entry that is an exception is raised instead (e.g. ``TransientModelError`` to test retries).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..errors import ModelError
from .chat import ChatModel, RawReply
from .messages import JsonSchema, Messages

Reply = str | BaseException


class ScriptedChatModel(ChatModel):
    """Replies from a list (consumed in order) or a function of the messages."""

    provider = "scripted"

    def __init__(self, script: Sequence[Reply] | Callable[[Messages], Reply], model: str = "scripted", **kwargs: Any):
        kwargs.setdefault("retry_wait", 0.01)
        super().__init__(model, **kwargs)
        self._script = script if callable(script) else list(script)
        self.requests: list[Messages] = []

    async def _generate(
        self, messages: Messages, *, json_schema: JsonSchema | None, temperature: float, max_tokens: int
    ) -> RawReply:
        self.requests.append(messages)
        if callable(self._script):
            reply = self._script(messages)
        elif self._script:
            reply = self._script.pop(0)
        else:
            raise ModelError("the scripted chat model has no replies left")
        if isinstance(reply, BaseException):
            raise reply
        prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in messages)
        return RawReply(reply, prompt_tokens, len(reply.split()))
