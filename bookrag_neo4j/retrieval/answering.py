"""Synthesizers (paper §5): Map (partial answers over groups of evidence) and Reduce (the final answer),
every claim citing its evidence by number; without an LLM, the ranked evidence itself (extractive).

    partials = await map_answers(llm, ["q1", "q2"], [nodes[:3], nodes[3:6]])   # [(answer, node keys)]
    text, used = await reduce_answer(llm, question, nodes, partials=partials)
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence

from ..llm.chat import ChatModel
from ..llm.prompts import render_prompt
from .planner_replies import SourcedAnswer
from .results import EvidenceNode

GROUP_SIZE = 5
DIRECT_REDUCE = 10  # up to this many evidence nodes (a single-hop Skyline) go straight to Reduce
REDUCE_EVIDENCE = 24  # Reduce shows at most this many evidence nodes besides the partial answers
PASSAGE_CHARS = 1500


def numbered(nodes: Sequence[EvidenceNode]) -> str:
    return "\n\n".join(f"[{i}] ({n.citation.label})\n{n.text[:PASSAGE_CHARS]}" for i, n in enumerate(nodes, 1))


async def map_answers(llm: ChatModel, questions: Sequence[str],
                      groups: Sequence[Sequence[EvidenceNode]]) -> list[tuple[str, list[str]]]:
    """One partial answer per group of evidence, to that group's question: (answer, keys of the nodes it
    used)."""

    async def one(question: str, group: Sequence[EvidenceNode]) -> tuple[str, list[str]]:
        prompt = render_prompt("answer_map", question=question, evidence=numbered(group))
        reply: SourcedAnswer = (await llm.complete(prompt, SourcedAnswer, stage="answer.map")).value
        return reply.answer, [group[s - 1].key for s in reply.sources if 1 <= s <= len(group)]

    return list(await asyncio.gather(*(one(q, g) for q, g in zip(questions, groups, strict=True))))


async def reduce_answer(llm: ChatModel, question: str, nodes: Sequence[EvidenceNode], *,
                        partials: Sequence[tuple[str, Sequence[str]]] = (),
                        operation: str | None = None) -> tuple[str, list[EvidenceNode]]:
    """The final answer over the evidence (numbered 1..n) and the partial answers (their sources shown by
    those numbers): the text and the evidence nodes it cites."""
    number = {n.key: i for i, n in enumerate(nodes, 1)}
    listing = "\n".join(f"- {answer} (sources {[number[k] for k in keys if k in number]})"
                         for answer, keys in partials if answer) or "(none)"
    prompt = render_prompt("answer_reduce", question=question, partials=listing,
                           operation=f"Operation: {operation}\n" if operation else "",
                           evidence=numbered(nodes[:REDUCE_EVIDENCE]))
    reply: SourcedAnswer = (await llm.complete(prompt, SourcedAnswer, stage="answer.reduce")).value
    return reply.answer, [nodes[s - 1] for s in reply.sources if 1 <= s <= len(nodes)]


EXCERPT_CHARS = 600  # of each passage an extractive answer quotes
_SENTENCE_END = re.compile(r"[.!?;](?=[\s\"')\]]|$)")


def says_something(node: EvidenceNode) -> bool:
    """Whether a node has text beyond its heading: a section, or a block that only repeats its section's title,
    answers nothing and is never an extractive answer's cited item."""
    text = " ".join(node.text.split())
    heading = node.section_path.rsplit(" > ", 1)[-1].strip()
    return node.kind != "section" and bool(text) and text not in {node.title.strip(), heading}


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """``text`` whole when it fits, else cut at its last sentence end within ``limit`` (at a word boundary when
    the first sentence is already longer), marked with an ellipsis: never mid-word."""
    text = text.strip()
    if len(text) <= limit:
        return text
    ends = [m.end() for m in _SENTENCE_END.finditer(text, 0, limit)]
    if ends and ends[-1] >= limit // 3:
        return text[:ends[-1]] + " …"
    cut = text.rfind(" ", 0, limit)
    return text[:cut if cut > 0 else limit].rstrip(" ,;:") + " …"


def extractive_items(nodes: Sequence[EvidenceNode], top: int = 3) -> list[EvidenceNode]:
    """The evidence an extractive answer quotes and cites: the best ``top`` nodes that say something (the best
    ones, whatever they are, when none does)."""
    return [n for n in nodes if says_something(n)][:top] or list(nodes[:top])


def extractive_answer(nodes: Sequence[EvidenceNode], *, count: int | None = None, top: int = 3,
                      parts: Sequence[tuple[str, int]] = ()) -> str:
    """Without an LLM: the count (global COUNT questions; over several documents with each one's part, "7
    (a.pdf 5, b.pdf 2)") or the :func:`extractive_items`, each quoted up to a sentence end with its citation."""
    if count is not None:
        return f"{count} ({', '.join(f'{name} {n}' for name, n in parts)})" if len(parts) > 1 else f"{count}"
    if not nodes:
        return "No evidence found."
    return "\n\n".join(f"[{i}] {excerpt(n.text)}\n    — {n.citation.label}"
                        for i, n in enumerate(extractive_items(nodes, top), 1))
