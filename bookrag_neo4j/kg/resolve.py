"""Entity resolution (paper Algorithm 1), incremental and in document order, over the Neo4j vector index.

    resolver = Resolver(graph, doc_key, mode="gradient", scorer=NameScorer(), llm=llm)
    for node, extraction, vectors in ...:                 # tree nodes in reading order
        keys = await resolver.add_node(node.key, extraction, vectors)   # entity name -> canonical key
    resolver.table.entities                              # the canonical entities, with mentions and aliases

For each new entity of a node:

1. **Structural** entities (a table, figure or formula of that node) are always new.
2. **Exact identity** (normalised name + type, see :mod:`.names`) with an entity seen before: the same
   entity. This is all that ``mode="basic"`` does: the baseline the paper compares against.
3. ``mode="gradient"``: the top ``top_k`` entities of the document by cosine on the ``entity_embedding``
   vector index (gate: cosine at least ``similarity_floor``), scored by the scorer, then
   :func:`~.gradient.gradient_decision`: **new**, **merge** into the single kept candidate, or **judge**: the
   LLM (``er_judge`` prompt) picks one of the kept candidates or none. Without an LLM a judge case merges
   into the top candidate only if it reaches ``single_candidate_score``; otherwise the entity is new.

Entities of the same node are not resolved against each other (they are written to Neo4j after their
node), as in the reference code. New entities are written as soon as their node is resolved, so the
next node's lookups see them.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..errors import ModelError
from ..graph.client import GraphClient
from ..keys import entity_key
from ..llm.chat import ChatModel
from ..llm.prompts import render_prompt
from .gradient import Scored, gradient_decision
from .names import name_key
from .replies import ERJudgement
from .scoring import EntityScorer, EntityView
from .types import ExtractedEntity, Extraction

log = logging.getLogger(__name__)

NODE_ENTITY_TYPES = ("TABLE", "IMAGE", "EQUATION")  # one per table/figure/formula node, never resolved
ERMode = Literal["gradient", "basic"]


@dataclass
class Entity:
    """A canonical entity: the first name seen, every other name as an alias, every description, every
    tree node it was extracted from."""

    key: str
    name: str
    type: str
    name_key: str
    embedding: list[float] | None = None
    descriptions: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    mentions: list[str] = field(default_factory=list)
    merges: int = 0  # entities the gradient rule (or the judge) merged into this one
    merged_from: list[str] = field(default_factory=list)  # their names, for auditing ER

    def view(self) -> EntityView:
        return EntityView(self.key, self.name, self.type, self.descriptions[0] if self.descriptions else "",
                          self.embedding)

    def absorb(self, entity: ExtractedEntity, node_key: str) -> None:
        if entity.name != self.name and entity.name not in self.aliases:
            self.aliases.append(entity.name)
        description = entity.description.strip()
        if description and description not in self.descriptions:
            self.descriptions.append(description)
        if node_key not in self.mentions:
            self.mentions.append(node_key)


@dataclass
class ERStats:
    """What resolution did: decisions by kind, vector lookups and their Neo4j time."""

    decisions: Counter = field(default_factory=Counter)
    lookups: int = 0
    lookup_entities: int = 0
    lookup_seconds: float = 0.0

    @property
    def merges(self) -> int:
        return self.decisions["merge"] + self.decisions["judge-merge"] + self.decisions["fallback-merge"]

    def as_dict(self) -> dict[str, float | int]:
        per = self.lookup_seconds / self.lookups * 1000 if self.lookups else 0.0
        return {**dict(sorted(self.decisions.items())), "merges": self.merges, "lookups": self.lookups,
                "lookup_entities": self.lookup_entities, "lookup_ms_mean": round(per, 2)}


class Resolver:
    """Incremental entity resolution for one document (see the module docstring)."""

    def __init__(
        self,
        graph: GraphClient,
        doc_key: str,
        *,
        mode: ERMode = "gradient",
        scorer: EntityScorer | None = None,
        llm: ChatModel | None = None,
        top_k: int = 10,
        oversample: int = 4,
        gradient: float = 0.6,
        min_score: float = 0.5,
        single_candidate_score: float = 0.9,
        similarity_floor: float = 0.6,
    ) -> None:
        if mode == "gradient" and scorer is None:
            raise ValueError("gradient ER needs a scorer")
        self.graph = graph
        self.doc_key = doc_key
        self.mode = mode
        self.scorer = scorer
        self.llm = llm
        self.top_k = top_k
        self.oversample = oversample
        self.gradient = gradient
        self.min_score = min_score
        self.single_candidate_score = single_candidate_score
        self.similarity_floor = similarity_floor
        self.entities: dict[str, Entity] = {}
        self._by_identity: dict[str, str] = {}
        self.created: list[str] = []  # keys created since the last flush_created()
        self.stats = ERStats()

    async def add_node(self, node_key: str, extraction: Extraction,
                       embeddings: Sequence[list[float] | None]) -> dict[str, str]:
        """Resolve one node's entities; returns lower-cased entity name -> canonical key."""
        resolved: dict[str, str] = {}
        pending: list[tuple[ExtractedEntity, list[float] | None]] = []
        for entity, vector in zip(extraction.entities, embeddings, strict=True):
            if entity.type in NODE_ENTITY_TYPES:
                resolved[entity.name.lower()] = self._create(entity, vector, node_key, f"node:{node_key}:{entity.type}")
                self.stats.decisions["structural"] += 1
                continue
            identity = name_key(entity.name, entity.type)
            if identity in self._by_identity:
                key = self._by_identity[identity]
                self.entities[key].absorb(entity, node_key)
                resolved[entity.name.lower()] = key
                self.stats.decisions["exact"] += 1
            elif self.mode == "basic" or vector is None:
                resolved[entity.name.lower()] = self._create(entity, vector, node_key, identity)
                self.stats.decisions["new"] += 1
            else:
                pending.append((entity, vector))
        if pending:
            candidates = await self._candidates([v for _, v in pending])
            for (entity, vector), keys in zip(pending, candidates, strict=True):
                resolved[entity.name.lower()] = await self._resolve(entity, vector, keys, node_key)
        return resolved

    def new_rows(self, keys: Sequence[str]) -> list[dict]:
        """Rows for ``kg/merge_entities`` that create the given entities (before their final properties)."""
        rows = []
        for key in keys:
            e = self.entities[key]
            props = {"key": e.key, "name": e.name, "type": e.type, "name_key": e.name_key, "doc_key": self.doc_key}
            if e.embedding is not None:
                props["embedding"] = e.embedding
            rows.append({"key": e.key, "props": props})
        return rows

    # --- internals ---
    def _create(self, entity: ExtractedEntity, vector: list[float] | None, node_key: str, identity: str) -> str:
        key = entity_key(self.doc_key, identity)
        if key not in self.entities:
            self.entities[key] = Entity(key, entity.name, entity.type, name_key(entity.name, entity.type), vector)
            self._by_identity.setdefault(name_key(entity.name, entity.type), key)
            self.created.append(key)
        self.entities[key].absorb(entity, node_key)
        return key

    def flush_created(self) -> list[str]:
        """Keys of entities created since the last call (to be written before the next node's lookups)."""
        keys, self.created = self.created, []
        return keys

    async def _candidates(self, vectors: list[list[float]]) -> list[list[str]]:
        began = time.perf_counter()
        rows = await self.graph.read(
            "kg/entity_candidates", rows=[{"i": i, "embedding": v} for i, v in enumerate(vectors)],
            doc_key=self.doc_key, k=self.top_k * self.oversample, top=self.top_k,
            floor=(1 + self.similarity_floor) / 2, skip_types=list(NODE_ENTITY_TYPES),
        )
        self.stats.lookup_seconds += time.perf_counter() - began
        self.stats.lookups += 1
        self.stats.lookup_entities += len(vectors)
        by_index = {r["i"]: [k for k in r["keys"] if k in self.entities] for r in rows}
        return [by_index.get(i, []) for i in range(len(vectors))]

    async def _resolve(self, entity: ExtractedEntity, vector: list[float], keys: list[str], node_key: str) -> str:
        identity = name_key(entity.name, entity.type)
        if not keys:
            self.stats.decisions["new"] += 1
            return self._create(entity, vector, node_key, identity)
        new = EntityView("", entity.name, entity.type, entity.description, vector)
        views = [self.entities[k].view() for k in keys]
        scores = await self.scorer.score(new, views)
        decision = gradient_decision(
            [Scored(k, s) for k, s in zip(keys, scores, strict=True)], gradient=self.gradient,
            min_score=self.min_score, single_candidate_score=self.single_candidate_score,
        )
        target: str | None = None
        outcome = decision.action
        if decision.action == "merge":
            target = decision.kept[0].key
        elif decision.action == "judge":
            if self.llm is not None:
                target = await self._judge(new, [self.entities[c.key] for c in decision.kept])
                outcome = "judge-merge" if target else "judge-new"
            elif decision.kept[0].score >= self.single_candidate_score:
                target, outcome = decision.kept[0].key, "fallback-merge"
            else:
                outcome = "fallback-new"
        self.stats.decisions[outcome] += 1
        if target is None:
            return self._create(entity, vector, node_key, identity)
        canonical = self.entities[target]
        canonical.absorb(entity, node_key)
        canonical.merges += 1
        if entity.name not in canonical.merged_from:
            canonical.merged_from.append(entity.name)
        self._by_identity.setdefault(identity, target)  # the same name later resolves exactly
        log.debug("ER: %r (%s) -> %r [%s]", entity.name, entity.type, canonical.name, decision.reason)
        return target

    async def _judge(self, new: EntityView, kept: list[Entity]) -> str | None:
        listing = "\n".join(f"id {i}: {e.name} ({e.type}): {(e.descriptions or [''])[0][:300]}"
                            for i, e in enumerate(kept))
        prompt = render_prompt("er_judge", new_entity=new.as_text(), candidates=listing)
        try:
            reply: ERJudgement = (await self.llm.complete(prompt, ERJudgement, stage="kg.er_judge")).value
        except ModelError as exc:
            log.warning("ER judge failed (%s); keeping %r as a new entity", exc, new.name)
            return None
        return kept[reply.select_id].key if 0 <= reply.select_id < len(kept) else None
