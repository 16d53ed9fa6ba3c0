"""Test doubles for models, whose every output the test knows: an embedder and an entity extractor."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from bookrag_neo4j.llm.embedder import Embedder
from bookrag_neo4j.text.extraction import Extraction, Passage


class NearbyEmbedder(Embedder):
    """Unit vectors all close to one direction: every earlier entity is a vector-index candidate."""

    name = "nearby"

    def __init__(self, dimension: int) -> None:
        self._dimension = dimension

    @property
    def dimension(self) -> int:
        return self._dimension

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            rng = np.random.default_rng(int(hashlib.sha256(text.encode()).hexdigest()[:8], 16))
            v = np.ones(self._dimension) + 0.05 * rng.standard_normal(self._dimension)
            out.append((v / np.linalg.norm(v)).tolist())
        return out


class ScriptedExtractor:
    """Entities and relations per passage text (text -> Extraction)."""

    fingerprint = "scripted-test-extractor"
    batch_size = 8

    def __init__(self, by_text: dict[str, Extraction]) -> None:
        self.by_text = by_text

    async def extract(self, passages: Sequence[Passage]) -> list[Extraction]:
        return [self.by_text.get(p.text, Extraction()) for p in passages]
