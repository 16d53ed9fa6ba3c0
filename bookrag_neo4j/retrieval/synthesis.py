"""Synthesizers (paper §5): Map (partial answers over groups of evidence) and Reduce (the final answer),
every claim citing its evidence by number; without an LLM, the ranked evidence itself (extractive).

    answer_text, used = await reduce_answer(llm, question, nodes)
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from ..llm.chat import ChatModel
from ..llm.prompts import render_prompt
from .evidence import EvidenceNode
from .replies import SourcedAnswer

GROUP_SIZE = 5
DIRECT_REDUCE = 10  # up to this many evidence nodes (a single-hop Skyline) go straight to Reduce
REDUCE_EVIDENCE = 24  # Reduce shows at most this many evidence nodes besides the partial answers
PASSAGE_CHARS = 1500


def numbered(nodes: Sequence[EvidenceNode]) -> str:
    return "\n\n".join(f"[{i}] ({n.citation.label()})\n{n.text[:PASSAGE_CHARS]}" for i, n in enumerate(nodes, 1))


async def map_answers(llm: ChatModel, questions: str | Sequence[str], groups: Sequence[Sequence[EvidenceNode]],
                      positions: Sequence[Sequence[int]]) -> list[SourcedAnswer]:
    """One partial answer per group (to its own question, or one question for all); each group's sources are
    renumbered to the evidence's global numbering (``positions[g][i]`` is the 0-based global index of the
    group's i-th node)."""
    asked = [questions] * len(groups) if isinstance(questions, str) else list(questions)

    async def one(question: str, group: Sequence[EvidenceNode], where: Sequence[int]) -> SourcedAnswer:
        prompt = render_prompt("answer_map", question=question, evidence=numbered(group))
        reply: SourcedAnswer = (await llm.complete(prompt, SourcedAnswer, stage="answer.map")).value
        return SourcedAnswer(answer=reply.answer, sources=[where[s - 1] + 1 for s in reply.sources if 1 <= s <= len(group)])

    return list(await asyncio.gather(*(one(q, g, w) for q, g, w in zip(asked, groups, positions, strict=True))))


async def reduce_answer(llm: ChatModel, question: str, nodes: Sequence[EvidenceNode], *,
                        partials: Sequence[SourcedAnswer] = (), operation: str | None = None) -> SourcedAnswer:
    """The final answer over all evidence (and partial answers when there are any)."""
    if not partials and len(nodes) > DIRECT_REDUCE:
        starts = range(0, len(nodes), GROUP_SIZE)
        partials = await map_answers(llm, question, [nodes[i:i + GROUP_SIZE] for i in starts],
                                     [list(range(i, min(i + GROUP_SIZE, len(nodes)))) for i in starts])
    listing = "\n".join(f"- {p.answer} (sources {p.sources})" for p in partials if p.answer) or "(none)"
    prompt = render_prompt("answer_reduce", question=question, partials=listing,
                           operation=f"Operation: {operation}\n" if operation else "",
                           evidence=numbered(nodes[:REDUCE_EVIDENCE]))
    reply: SourcedAnswer = (await llm.complete(prompt, SourcedAnswer, stage="answer.reduce")).value
    return SourcedAnswer(answer=reply.answer, sources=[s for s in reply.sources if 1 <= s <= len(nodes)])


def extractive_answer(nodes: Sequence[EvidenceNode], *, count: int | None = None, top: int = 3) -> str:
    """Without an LLM: the count (global COUNT questions) or the best passages, each with its citation."""
    if count is not None:
        return f"{count}"
    if not nodes:
        return "No evidence found."
    return "\n\n".join(f"[{i}] {n.text[:600].strip()}\n    — {n.citation.label()}" for i, n in enumerate(nodes[:top], 1))
