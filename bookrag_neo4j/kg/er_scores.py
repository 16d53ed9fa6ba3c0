"""Scorers for entity resolution: how likely a candidate is the same entity as a new one, in [0, 1].

The paper scores candidates with a cross-encoder: :class:`RerankerScorer` asks the configured reranker with "name
(type): description" on both sides (its scores must be probabilities). :class:`NameScorer`, the offline default, needs
no model: the same identity (:func:`~.names.identity`) scores 1.0, an acronym of the other's initials 0.9 (0.8 for two
letters), else the name embeddings' cosine sharpened to ``((cos - 0.5) / 0.5) ** 2`` so only near-duplicates score high,
halved for different head words or two different specific types. Names that cannot be one thing score 0: different
section titles, different numbers ("Q1"/"Q2", "Item 7"/"Item 7A"), a negation on one side only, people whose name words
are not a subset of the other's. Both read an :class:`EntityView` and are interchangeable; tests use a scorer whose
scores they choose.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..llm.reranker import Reranker
from ..text.names import identity, is_acronym, normalise

GENERIC_TYPES = {"CONCEPT"}
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*[A-Za-z]?")
_NEGATION = re.compile(r"\b(?:non|not|no|without|un)(?:-|\s)", re.IGNORECASE)


@dataclass
class EntityView:
    """What a scorer reads of an entity."""

    key: str
    name: str
    type: str
    description: str = ""
    embedding: Sequence[float] | np.ndarray | None = None

    def as_text(self) -> str:
        return f"{self.name} ({self.type}): {self.description[:300]}".strip()


class EntityScorer(Protocol):
    fingerprint: str  # identifies the scoring rule (a change rebuilds graphs built with the old one)

    async def score(self, new: EntityView, candidates: Sequence[EntityView]) -> list[float]: ...


def _head(name: str) -> str:
    words = identity(name).split()
    return words[-1] if words else ""


def _words(name: str) -> set[str]:
    return {w.strip(".") for w in normalise(name).replace("-", " ").split() if w.strip(".")}


def incompatible(a: EntityView, b: EntityView) -> bool:
    """Names that denote different things however close their embeddings (see the module docstring)."""
    if a.type == b.type == "SECTION_TITLE":
        return True
    numbers_a, numbers_b = set(_NUMBER.findall(a.name)), set(_NUMBER.findall(b.name))
    if numbers_a and numbers_b and numbers_a != numbers_b:
        return True
    if bool(_NEGATION.search(a.name)) != bool(_NEGATION.search(b.name)):
        return True
    if "PERSON" in (a.type, b.type):
        words_a, words_b = _words(a.name), _words(b.name)
        return not (words_a <= words_b or words_b <= words_a)
    return False


def types_compatible(a: str, b: str) -> bool:
    return a == b or a in GENERIC_TYPES or b in GENERIC_TYPES


class NameScorer:
    """Offline scorer: normalised names, acronyms, sharpened embedding cosine, type compatibility."""

    fingerprint = "names-5"

    def __init__(self, *, acronym_score: float = 0.9) -> None:
        self.acronym_score = acronym_score

    def pair(self, new: EntityView, other: EntityView) -> float:
        if identity(new.name) == identity(other.name):
            score = 1.0
        elif incompatible(new, other):
            score = 0.0
        elif is_acronym(new.name, other.name) or is_acronym(other.name, new.name):
            short = min(new.name, other.name, key=len).replace(".", "").removesuffix("s")
            score = self.acronym_score if len(short) > 2 else self.acronym_score - 0.1
        elif new.embedding is not None and other.embedding is not None:
            a, b = np.asarray(new.embedding), np.asarray(other.embedding)
            cos = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) or 1.0))
            score = max(0.0, (cos - 0.5) / 0.5) ** 2
            if _head(new.name) != _head(other.name):
                score /= 2
        else:
            score = 0.0
        return score if types_compatible(new.type, other.type) else score / 2

    async def score(self, new: EntityView, candidates: Sequence[EntityView]) -> list[float]:
        return [round(self.pair(new, c), 6) for c in candidates]


class RerankerScorer:
    """The paper's setting: a cross-encoder reranker judges "same entity?" from names, types, descriptions."""

    def __init__(self, reranker: Reranker) -> None:
        self.reranker = reranker
        self.fingerprint = f"reranker:{type(reranker).__name__}:{getattr(reranker, 'model', '')}"

    async def score(self, new: EntityView, candidates: Sequence[EntityView]) -> list[float]:
        if not candidates:
            return []
        return [float(s) for s in await self.reranker.score(new.as_text(), [c.as_text() for c in candidates])]
