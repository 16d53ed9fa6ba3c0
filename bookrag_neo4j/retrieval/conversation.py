"""Follow-up questions: a conversation's earlier turns decide what a follow-up reads and how it is read.

    turns = [first_answer.turn()]        # Turn(question=..., answer=..., documents=[the keys it cited])
    await standalone(llm, turns, "And its net income?")   # "What was Best Buy's net income in fiscal 2023?"

With an LLM the history goes into a prompt (``followup_question``) that rewrites the follow-up to stand on its own
(the "condense question" step of conversational retrieval); a failed reply keeps the follow-up as written. With or
without one, a follow-up that names no document reads the documents the last turn cited (:func:`carried_documents`),
so "and in 2022?" stays with the filing the conversation is about.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from pydantic import BaseModel, Field

from ..errors import ModelError
from ..llm.chat import ChatModel
from ..llm.prompts import render_prompt
from .results import Turn

log = logging.getLogger(__name__)
MAX_TURNS = 10  # the turns a follow-up is read with (older ones are dropped)
ANSWER_CHARS = 600  # of each earlier answer in the prompt


class Standalone(BaseModel):
    """Reply to ``followup_question``."""

    question: str = Field(min_length=1)


def recent(turns: Sequence[Turn]) -> list[Turn]:
    """The turns a follow-up is read with: the last :data:`MAX_TURNS`."""
    return list(turns)[-MAX_TURNS:]


def history_text(turns: Sequence[Turn]) -> str:
    """The conversation for the prompt: each turn's question and the start of its answer."""
    lines = []
    for number, turn in enumerate(recent(turns), 1):
        answer = " ".join(turn.answer.split())
        cut = answer[:ANSWER_CHARS] + ("…" if len(answer) > ANSWER_CHARS else "")
        lines += [f"{number}. Q: {' '.join(turn.question.split())}", f"   A: {cut or '(no answer)'}"]
    return "\n".join(lines)


async def standalone(llm: ChatModel | None, turns: Sequence[Turn], question: str) -> str:
    """The follow-up as a question that stands on its own (the LLM reads the history); unchanged without an LLM,
    without history, or when the reply fails."""
    if llm is None or not turns:
        return question
    try:
        reply = await llm.complete(render_prompt("followup_question", history=history_text(turns), question=question),
                                   Standalone, stage="query.followup")
    except ModelError as exc:
        log.warning("rewriting the follow-up failed (%s); asking it as written", exc)
        return question
    return " ".join(reply.value.question.split()) or question


def carried_documents(turns: Sequence[Turn]) -> list[str]:
    """The document keys a follow-up that names no document reads: the last turn's that cited any."""
    for turn in reversed(recent(turns)):
        if turn.documents:
            return list(dict.fromkeys(turn.documents))
    return []
