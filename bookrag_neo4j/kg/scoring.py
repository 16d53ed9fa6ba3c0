"""Scorers for entity resolution: how likely a candidate is the same entity as a new one, in [0, 1].

The paper scores candidates with a cross-encoder reranker. Two scorers implement that step:

- :class:`RerankerScorer` asks the configured reranker (a cross-encoder or an HTTP ``/rerank`` endpoint) with
  "name (type): description" on both sides; its scores must be probabilities in [0, 1].
- :class:`NameScorer`, the offline default, needs no model download. A normalised-identical name scores 1.0;
  an acronym of the other's initials ("SEC" / "Securities and Exchange Commission") 0.9 (0.8 for two
  letters); otherwise the cosine of the two name embeddings, sharpened to ``((cos - 0.5) / 0.5) ** 2`` so
  that only near-duplicates score high (cos 0.95 -> 0.81, 0.85 -> 0.49, 0.7 -> 0.16), and halved when the
  names end in different head words ("R language" / "R Language Definition"). Two different specific types
  (neither ``CONCEPT``) halve the score; two section titles with different names score 0 (sections are
  distinct by construction).

Both read the same :class:`EntityView` and are interchangeable; tests use a scorer whose scores they choose.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..llm.reranker import Reranker
from .names import is_acronym, normalise

GENERIC_TYPES = {"CONCEPT"}


@dataclass
class EntityView:
    """What a scorer reads of an entity."""

    key: str
    name: str
    type: str
    description: str = ""
    embedding: Sequence[float] | None = None

    def as_text(self) -> str:
        return f"{self.name} ({self.type}): {self.description[:300]}".strip()


class EntityScorer(Protocol):
    async def score(self, new: EntityView, candidates: Sequence[EntityView]) -> list[float]: ...


def _head(name: str) -> str:
    words = normalise(name).split()
    return words[-1] if words else ""


def types_compatible(a: str, b: str) -> bool:
    return a == b or a in GENERIC_TYPES or b in GENERIC_TYPES


class NameScorer:
    """Offline scorer: normalised names, acronyms, sharpened embedding cosine, type compatibility."""

    def __init__(self, *, acronym_score: float = 0.9) -> None:
        self.acronym_score = acronym_score

    def pair(self, new: EntityView, other: EntityView) -> float:
        if normalise(new.name) == normalise(other.name):
            score = 1.0
        elif is_acronym(new.name, other.name) or is_acronym(other.name, new.name):
            short = min(new.name, other.name, key=len).replace(".", "").removesuffix("s")
            score = self.acronym_score if len(short) > 2 else self.acronym_score - 0.1
        elif new.type == other.type == "SECTION_TITLE":
            score = 0.0
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

    async def score(self, new: EntityView, candidates: Sequence[EntityView]) -> list[float]:
        if not candidates:
            return []
        return [float(s) for s in await self.reranker.score(new.as_text(), [c.as_text() for c in candidates])]
