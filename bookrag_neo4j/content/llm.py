"""The content graph with an LLM (``--evolution llm``): node attributes from the paper's node prompt (E.6,
``prompts/g2_node.md``) and T rounds of evolution (E.7, ``prompts/g2_evolve.md``).

    attrs = await node_attributes(llm, nodes)
    run = await evolve(llm, embedder, nodes, attrs, h0, rounds=3, k=5)
    run.attributes, run.vectors, run.links     # updated summaries and keywords, h(T), G2_LINK rows (kind 'llm')

Each round, every node sees its top-K neighbours by cosine and the nodes it is linked to (its candidate set
C_i = TopK ∪ N(v_i)); the model picks the links and may rewrite the node's summary and keywords, which are then
embedded again (h = Enc(summary ⊕ keywords)). The links kept are those of the last round. Calls run side by
side, bounded by the chat model's concurrency. A node whose reply fails keeps its attributes and links, and the
build goes on (logged).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, Field

from ..errors import ModelError
from ..llm.chat import ChatModel
from ..llm.embedder import Embedder
from ..llm.prompts import render_prompt
from ..progress import ProgressCallback, stage
from .evolve import nearest as nearest_nodes
from .nodes import Attributes, ContentNode, offline_summary

log = logging.getLogger(__name__)

CONTENT_CHARS = 3000  # of a node's content in the node prompt
NEIGHBOUR_CHARS = 400  # of each neighbour's content in the evolution prompt


class NodeReply(BaseModel):
    keywords: list[str] = Field(default_factory=list)
    summary: str = ""
    tags: list[str] = Field(default_factory=list)


class EvolveReply(BaseModel):
    suggested_connections: list[str | int] = Field(default_factory=list)
    should_update: bool = False
    new_summary: str = ""
    new_keywords: list[str] = Field(default_factory=list)


@dataclass(frozen=True)
class LLMEvolution:
    attributes: list[Attributes]
    vectors: np.ndarray
    links: list[dict]  # G2_LINK rows {a, b, kind: 'llm', score, t}
    failures: int


def node_id(i: int) -> str:
    return f"n{i}"


def _as_id(reply_id: str | int) -> str:
    """A neighbour id as the model wrote it ("n12", "12" or 12) as the prompt named it ("n12")."""
    text = str(reply_id).strip()
    return text if text.startswith("n") else f"n{text}"


async def node_attributes(llm: ChatModel, nodes: Sequence[ContentNode], *,
                          progress: ProgressCallback | None = None) -> list[Attributes]:
    """Each node's summary and keywords from the node prompt (a failed reply: its offline summary, no keywords)."""
    with stage(progress, "content graph: node summaries", len(nodes)) as running:
        async def one(node: ContentNode) -> Attributes:
            try:
                reply = (await llm.complete(render_prompt("g2_node", content=node.content[:CONTENT_CHARS]),
                                            NodeReply, stage="g2.node")).value
                attrs = Attributes(summary=reply.summary.strip() or offline_summary(node),
                                   keywords=[k.strip().lower() for k in reply.keywords if k.strip()][:12])
            except ModelError as exc:
                log.warning("node prompt failed for %s (%s); offline summary kept", node.key, exc)
                attrs = Attributes(summary=offline_summary(node), keywords=[])
            running.advance(1)
            return attrs

        return list(await asyncio.gather(*(one(n) for n in nodes)))


async def evolve(llm: ChatModel, embedder: Embedder, nodes: Sequence[ContentNode], attributes: Sequence[Attributes],
                 initial: np.ndarray, *, rounds: int, k: int,
                 progress: ProgressCallback | None = None) -> LLMEvolution:
    """``rounds`` rounds of LLM evolution (see the module docstring)."""
    attrs = list(attributes)
    vectors = initial.copy()
    linked: dict[int, set[int]] = {i: set() for i in range(len(nodes))}
    first_seen: dict[tuple[int, int], int] = {}
    failures = 0
    for t in range(1, rounds + 1):
        nearest, _ = nearest_nodes(vectors, k)
        with stage(progress, f"content graph: evolution round {t}", len(nodes)) as running:
            async def one(i: int, nearest: np.ndarray = nearest) -> tuple[int, EvolveReply | None, list[int]]:
                candidates = list(dict.fromkeys([*map(int, nearest[i]), *sorted(linked[i])]))
                listing = "\n".join(f"{node_id(j)}: {attrs[j].summary} | {', '.join(attrs[j].keywords)} | "
                                    f"{' '.join(nodes[j].content.split())[:NEIGHBOUR_CHARS]}" for j in candidates)
                prompt = render_prompt("g2_evolve", content=nodes[i].content[:CONTENT_CHARS],
                                       summary=attrs[i].summary, keywords=", ".join(attrs[i].keywords),
                                       neighbour_number=len(candidates), neighbours=listing)
                try:
                    reply = (await llm.complete(prompt, EvolveReply, stage="g2.evolve")).value
                except ModelError as exc:
                    log.warning("evolution prompt failed for %s (%s); node kept as it was", nodes[i].key, exc)
                    reply = None
                running.advance(1)
                return i, reply, candidates

            replies = await asyncio.gather(*(one(i) for i in range(len(nodes))))
        changed: list[int] = []
        for i, reply, candidates in replies:
            if reply is None:
                failures += 1
                continue
            allowed = {node_id(j): j for j in candidates}
            linked[i] = {allowed[c] for c in map(_as_id, reply.suggested_connections) if c in allowed}
            if reply.should_update and reply.new_summary.strip():
                attrs[i] = Attributes(summary=reply.new_summary.strip(),
                                      keywords=[k.strip().lower() for k in reply.new_keywords if k.strip()][:12]
                                      or attrs[i].keywords)
                changed.append(i)
        for i, targets in linked.items():
            for j in targets:
                first_seen.setdefault((i, j), t)
        if changed:
            found = np.array(await embedder.embed([attrs[i].embed_text for i in changed]), dtype=np.float64)
            vectors[changed] = found / np.maximum(np.linalg.norm(found, axis=1, keepdims=True), 1e-12)
    links = [{"a": nodes[i].key, "b": nodes[j].key, "kind": "llm", "score": float(vectors[i] @ vectors[j]),
              "t": first_seen[(i, j)]} for i in sorted(linked) for j in sorted(linked[i])]
    return LLMEvolution(attributes=attrs, vectors=vectors, links=links, failures=failures)
