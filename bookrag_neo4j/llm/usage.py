"""Token and call accounting per stage (``index.extract``, ``query.plan``, ...).

Every chat model records each call into its own lifetime ledger and into the ledger of the innermost
``track_usage()`` block, so an index run or an answer can report exactly what it cost::

    with track_usage() as ledger:
        await llm.complete(messages, stage="query.plan")
    ledger.by_stage()["query.plan"].prompt_tokens
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager

from pydantic import BaseModel


class Usage(BaseModel):
    """Calls and tokens. ``cached_calls`` were answered from the response cache and cost no tokens."""

    calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            calls=self.calls + other.calls,
            cached_calls=self.cached_calls + other.cached_calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
        )


class UsageLedger:
    """Usage summed per stage; a ledger opened inside another also records into that one."""

    def __init__(self, parent: UsageLedger | None = None) -> None:
        self._stages: dict[str, Usage] = {}
        self._parent = parent

    def record(self, stage: str, usage: Usage) -> None:
        self._stages[stage] = self._stages.get(stage, Usage()) + usage
        if self._parent is not None:
            self._parent.record(stage, usage)

    def by_stage(self) -> dict[str, Usage]:
        return dict(sorted(self._stages.items()))

    def total(self) -> Usage:
        return sum(self._stages.values(), Usage())

    def as_dict(self) -> dict[str, dict[str, int]]:
        return {stage: usage.model_dump() for stage, usage in self.by_stage().items()}


_current: contextvars.ContextVar[UsageLedger | None] = contextvars.ContextVar("bookrag_usage", default=None)


@contextmanager
def track_usage() -> Iterator[UsageLedger]:
    """Collect the usage of every model call made inside the block (including in tasks it starts, and in
    blocks nested in it)."""
    ledger = UsageLedger(parent=_current.get())
    token = _current.set(ledger)
    try:
        yield ledger
    finally:
        _current.reset(token)


def current_ledger() -> UsageLedger | None:
    return _current.get()
