"""The BookRAG paper's appendix A.1 answer extraction, and an optional LLM judge, for ``bookrag eval --mode qa``.

    extracted = await extract_answer(llm, question, response, answer_format="Float")   # "18.29"
    verdict = await judge_answer(llm, question, gold, response)                          # True / False / None

A RAG system answers in sentences with citations ("Net sales rose to $18.29 billion [2]."); the reference
answers are short ("18.29"). Following the paper (and MMLongBench's official protocol) an LLM first copies
the answer out of the response in the benchmark's format (prompt ``answer_extract``); EM, token F1 and the
benchmark's own rules score the extracted answer, inclusion accuracy the raw response. Without an LLM the
response is scored as written. The judge (prompt ``answer_judge``) is a second opinion, off by default:
``None`` when the model fails.
"""

from __future__ import annotations

import json
import logging
from typing import Literal

from pydantic import BaseModel

from ..errors import ModelError
from ..llm.chat import ChatModel
from ..llm.prompts import render_prompt

log = logging.getLogger(__name__)


class ExtractedAnswer(BaseModel):
    """Reply to ``answer_extract``."""

    extracted_answer: str | int | float | list[str | int | float]
    answer_format: Literal["Int", "Float", "Str", "List", "None"] = "Str"


class Verdict(BaseModel):
    """Reply to ``answer_judge``."""

    correct: bool
    reason: str = ""


async def extract_answer(llm: ChatModel | None, question: str, response: str, *, answer_format: str = "") -> str:
    """The short answer in ``response`` (a list as a JSON list); ``response`` itself without an LLM or when
    the model fails."""
    if llm is None or not response.strip():
        return response
    try:
        reply = (await llm.complete(render_prompt(
            "answer_extract", question=question, response=response, answer_format=answer_format or "(any)"),
            ExtractedAnswer, stage="eval_extract")).value
    except ModelError as exc:
        log.warning("answer extraction failed (%s); scoring the response as written", exc)
        return response
    value = reply.extracted_answer
    return json.dumps([str(v) for v in value]) if isinstance(value, list) else str(value)


async def judge_answer(llm: ChatModel, question: str, gold: str, response: str) -> bool | None:
    """The judge's verdict on ``response`` against ``gold``; ``None`` when the model fails."""
    try:
        reply = (await llm.complete(render_prompt(
            "answer_judge", question=question, gold=gold, response=response), Verdict, stage="eval_judge")).value
    except ModelError as exc:
        log.warning("the LLM judge failed (%s)", exc)
        return None
    return reply.correct
