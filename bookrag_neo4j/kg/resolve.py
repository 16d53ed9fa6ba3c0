"""Entity resolution (paper Algorithm 1), incremental and in document order, over the document's entity embeddings.

    resolver = Resolver(doc_key, mode="gradient", scorer=NameScorer(), llm=llm)
    keys = await resolver.add_node(node.key, extraction, vectors)   # each tree node in reading order: name -> key

For each new entity of a node: a structural one is new; an exact identity (normalised name and type, :mod:`.names`) is
the same entity, all that ``mode="basic"`` (the paper's baseline) does; ``mode="gradient"`` scores the document's top
``top_k`` entities by cosine (above ``similarity_floor``) and :func:`~.gradient.gradient_decision` makes it new, merges
it, or has the LLM judge (``er_judge``); without an LLM a judge case merges only at ``single_candidate_score``. A node's
own entities are not resolved against each other, as in the reference code. Candidates are the document's own entities:
no index query per name, no other documents in the top k.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from ..errors import ModelError
from ..keys import entity_key
from ..llm.chat import ChatModel
from ..llm.prompts import render_prompt
from ..text.extraction import ExtractedEntity, Extraction
from ..text.names import name_key
from .er_scores import EntityScorer, EntityView
from .extraction_replies import ERJudgement
from .gradient import Scored, gradient_decision

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
    array: np.ndarray | None = field(default=None, repr=False)  # the embedding as an array, made once for scoring

    def view(self) -> EntityView:
        if self.array is None and self.embedding is not None:
            self.array = np.asarray(self.embedding)
        return EntityView(self.key, self.name, self.type, self.descriptions[0] if self.descriptions else "",
                          self.array)

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
    """What resolution did: decisions by kind, candidate lookups (one a node with new names) and their time."""

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
                "lookup_entities": self.lookup_entities, "lookup_ms_mean": round(per, 3)}


class EntityMatrix:
    """The unit-length embeddings of the entities that may be candidates, as rows of one growing matrix."""

    def __init__(self) -> None:
        self.keys: list[str] = []
        self._rows = np.zeros((0, 0), dtype=np.float32)

    def __len__(self) -> int:
        return len(self.keys)

    def add(self, key: str, vector: Sequence[float]) -> None:
        v = np.asarray(vector, dtype=np.float32)
        if not self.keys:
            self._rows = np.zeros((64, v.shape[0]), dtype=np.float32)
        elif len(self.keys) == self._rows.shape[0]:
            self._rows = np.concatenate([self._rows, np.zeros_like(self._rows)])
        norm = float(np.linalg.norm(v))
        self._rows[len(self.keys)] = v / norm if norm else v
        self.keys.append(key)

    def nearest(self, vectors: Sequence[Sequence[float]], *, among: int, top: int, floor: float) -> list[list[str]]:
        """For each vector, the keys of the ``top`` rows of the first ``among`` by cosine, those at ``floor`` or
        above, best first."""
        if among == 0 or not vectors:
            return [[] for _ in vectors]
        queries = np.asarray(vectors, dtype=np.float32)
        queries /= np.maximum(np.linalg.norm(queries, axis=1, keepdims=True), 1e-12)
        sims = queries @ self._rows[:among].T
        out = []
        for row in sims:
            best = np.argpartition(-row, top - 1)[:top] if among > top else np.arange(among)
            best = best[np.argsort(-row[best], kind="stable")]
            out.append([self.keys[i] for i in best if row[i] >= floor])
        return out


class Resolver:
    """Incremental entity resolution for one document (see the module docstring)."""

    def __init__(
        self,
        doc_key: str,
        *,
        mode: ERMode = "gradient",
        scorer: EntityScorer | None = None,
        llm: ChatModel | None = None,
        top_k: int = 10,
        gradient: float = 0.6,
        min_score: float = 0.5,
        single_candidate_score: float = 0.9,
        similarity_floor: float = 0.6,
    ) -> None:
        if mode == "gradient" and scorer is None:
            raise ValueError("gradient ER needs a scorer")
        self.doc_key = doc_key
        self.mode = mode
        self.scorer = scorer
        self.llm = llm
        self.top_k = top_k
        self.gradient = gradient
        self.min_score = min_score
        self.single_candidate_score = single_candidate_score
        self.similarity_floor = similarity_floor
        self.entities: dict[str, Entity] = {}
        self._by_identity: dict[str, str] = {}
        self.matrix = EntityMatrix()  # the candidates: non-structural entities with an embedding
        self.stats = ERStats()

    async def add_node(self, node_key: str, extraction: Extraction,
                       embeddings: Sequence[list[float] | None]) -> dict[str, str]:
        """Resolve one node's entities; returns lower-cased entity name -> canonical key."""
        resolved: dict[str, str] = {}
        visible = len(self.matrix)  # entities of earlier nodes: this node's own are not candidates
        pending: list[tuple[ExtractedEntity, list[float]]] = []
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
            candidates = self._candidates([v for _, v in pending], visible)
            for (entity, vector), keys in zip(pending, candidates, strict=True):
                resolved[entity.name.lower()] = await self._resolve(entity, vector, keys, node_key)
        return resolved

    def properties(self, entity: Entity) -> dict:
        """What ``kg/merge_entities`` sets of an entity's identity (name, type, keys, embedding)."""
        props: dict[str, Any] = {"key": entity.key, "name": entity.name, "type": entity.type, "name_key": entity.name_key,
                 "doc_key": self.doc_key}
        if entity.embedding is not None:
            props["embedding"] = entity.embedding
        return props

    # --- internals ---
    def _create(self, entity: ExtractedEntity, vector: list[float] | None, node_key: str, identity: str) -> str:
        key = entity_key(self.doc_key, identity)
        if key not in self.entities:
            self.entities[key] = Entity(key, entity.name, entity.type, name_key(entity.name, entity.type), vector)
            self._by_identity.setdefault(name_key(entity.name, entity.type), key)
            if vector is not None and entity.type not in NODE_ENTITY_TYPES:
                self.matrix.add(key, vector)
        self.entities[key].absorb(entity, node_key)
        return key

    def _candidates(self, vectors: list[list[float]], visible: int) -> list[list[str]]:
        began = time.perf_counter()
        found = self.matrix.nearest(vectors, among=visible, top=self.top_k, floor=self.similarity_floor)
        self.stats.lookup_seconds += time.perf_counter() - began
        self.stats.lookups += 1
        self.stats.lookup_entities += len(vectors)
        return found

    async def _resolve(self, entity: ExtractedEntity, vector: list[float], keys: list[str], node_key: str) -> str:
        assert self.scorer is not None
        identity = name_key(entity.name, entity.type)
        if not keys:
            self.stats.decisions["new"] += 1
            return self._create(entity, vector, node_key, identity)
        new = EntityView("", entity.name, entity.type, entity.description, np.asarray(vector))
        views = [self.entities[k].view() for k in keys]
        scores = await self.scorer.score(new, views)
        decision = gradient_decision(
            [Scored(k, s) for k, s in zip(keys, scores, strict=True)], gradient=self.gradient,
            min_score=self.min_score, single_candidate_score=self.single_candidate_score,
        )
        target: str | None = None
        outcome: str = decision.action
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
        assert self.llm is not None
        try:
            reply: ERJudgement = (await self.llm.complete(prompt, ERJudgement, stage="kg.er_judge")).value
        except ModelError as exc:
            log.warning("ER judge failed (%s); keeping %r as a new entity", exc, new.name)
            return None
        return kept[reply.select_id].key if 0 <= reply.select_id < len(kept) else None
