"""Rerankers: ``score(query, passages) -> list[float]``, higher is more relevant, comparable within a call.

- :class:`CrossEncoderReranker`: a sentence-transformers ``CrossEncoder`` (e.g. bge-reranker-v2-m3,
  Qwen3-Reranker as the paper uses) when its weights are available locally.
- :class:`HTTPReranker`: an OpenAI-style ``/rerank`` endpoint (vLLM, TEI, Jina/Cohere format).
- :class:`FusionReranker`: the **offline default**. No cross-encoder ships its weights on PyPI, so it fuses
  bi-encoder cosine similarity with BM25 by reciprocal-rank fusion: ``1/(k+rank_cos) + 1/(k+rank_bm25)``,
  divided by its maximum ``2/(k+1)`` so a passage ranked first by both scores 1.0. It reads query and passage
  separately (no cross-attention), so it is weaker than a cross-encoder at fine distinctions (negation,
  which of two similar entities); scores carry rank information only, not calibrated relevance.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, cast

import httpx
import numpy as np

from ..errors import ModelError, ModelNotConfiguredError
from ..text.lexical import bm25_scores
from .embedder import Embedder, resolve_packaged_model


class Reranker(ABC):
    """Scores passages against a query."""

    name: str
    reads_similarities = False  # True: scores from precomputed similarities need no model at query time

    @abstractmethod
    async def score(self, query: str, passages: Sequence[str], *,
                    similarities: Sequence[float | None] | None = None) -> list[float]:
        """Scores of ``passages``. ``similarities``: each passage's embedding similarity to the query, computed
        elsewhere (e.g. in Neo4j from stored embeddings; ``None`` where there is none); a reranker that can use
        them does, the others ignore them."""

    def score_sync(self, query: str, passages: Sequence[str]) -> list[float]:
        return asyncio.run(self.score(query, passages))


def _ranks(values: Sequence[float]) -> list[int]:
    """Competition ranks (1 = best; ties share the better rank)."""
    order = sorted(values, reverse=True)
    first: dict[float, int] = {}
    for i, v in enumerate(order):
        first.setdefault(v, i + 1)
    return [first[v] for v in values]


def _ranks_among(values: Sequence[float], population: np.ndarray, tolerance: float = 1e-9) -> list[int]:
    """Competition ranks of ``values`` in ``population`` (1 + how many of it are greater; a value equal to one
    of it, within ``tolerance``, shares its rank)."""
    ordered = np.sort(np.asarray(population, dtype=np.float64))
    greater = len(ordered) - np.searchsorted(ordered, np.asarray(values, dtype=np.float64) + tolerance, side="right")
    return (1 + greater).tolist()


class FusionReranker(Reranker):
    """Offline: reciprocal-rank fusion of embedder cosine and BM25, scaled to (0, 1]."""

    def __init__(self, embedder: Embedder, *, k: int = 60) -> None:
        self.embedder = embedder
        self.k = k
        self.name = f"fusion({embedder.name}+bm25)"

    reads_similarities = True

    async def score(self, query: str, passages: Sequence[str], *,
                    similarities: Sequence[float | None] | None = None,
                    lexical: Sequence[float] | None = None,
                    population: tuple[np.ndarray, np.ndarray] | None = None) -> list[float]:
        """``similarities``: each passage's similarity to the query as ``vector.similarity.cosine`` gives it,
        (1 + cos) / 2, or None (the passage is embedded now, on the same scale). ``lexical``: BM25 scores
        computed elsewhere (e.g. with a whole document's statistics); default: BM25 over ``passages``.
        ``population``: the similarities and BM25 scores of the whole collection the passages come from (a
        document's blocks); each passage is ranked among them, not among the passages, so that its score does
        not depend on which others were selected with it."""
        if not passages:
            return []
        known: list[float | None] = list(similarities) if similarities is not None else [None] * len(passages)
        missing = [i for i, s in enumerate(known) if s is None]
        if missing:  # embed only the passages without a precomputed similarity (e.g. blocks never embedded)
            vectors = np.asarray(await self.embedder.embed([query, *(passages[i] for i in missing)]))
            for i, value in zip(missing, (vectors[1:] @ vectors[0]).tolist(), strict=True):
                known[i] = (1.0 + value) / 2.0  # the scale of the given ones: a raw cosine ranked below them all
        bm25 = list(lexical) if lexical is not None else bm25_scores(query, passages)
        best = 2.0 / (self.k + 1)
        filled = cast(list[float], known)
        by_similarity, by_bm25 = (_ranks(filled), _ranks(bm25)) if population is None else \
            (_ranks_among(filled, population[0]), _ranks_among(bm25, population[1]))
        return [(1.0 / (self.k + rc) + 1.0 / (self.k + rb)) / best
                for rc, rb in zip(by_similarity, by_bm25, strict=True)]


class CrossEncoderReranker(Reranker):
    """A sentence-transformers ``CrossEncoder`` (scores in [0, 1] for single-label models)."""

    def __init__(self, model: str, *, device: str = "cpu", batch_size: int = 32) -> None:
        self.name = model
        self.device = device
        self.batch_size = batch_size
        self._model: Any = None

    def _predict(self, pairs: list[tuple[str, str]]) -> list[float]:
        if self._model is None:
            try:
                from sentence_transformers import CrossEncoder
            except ImportError as exc:
                raise ModelNotConfiguredError("the cross-encoder reranker needs the `local` extra") from exc
            self._model = CrossEncoder(resolve_packaged_model(self.name), device=self.device)
        return [float(s) for s in self._model.predict(pairs, batch_size=self.batch_size, show_progress_bar=False)]

    async def score(self, query: str, passages: Sequence[str], *,
                    similarities: Sequence[float | None] | None = None) -> list[float]:
        if not passages:
            return []
        return await asyncio.to_thread(self._predict, [(query, p) for p in passages])


class HTTPReranker(Reranker):
    """POST ``{base_url}/rerank`` with ``{model, query, documents}``; reads ``results[].relevance_score``."""

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None, timeout: float = 60.0,
                 max_retries: int = 3) -> None:
        self.name = model
        self.url = base_url.rstrip("/") + "/rerank"
        self.max_retries = max_retries
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.AsyncClient(timeout=timeout, headers=headers)

    async def score(self, query: str, passages: Sequence[str], *,
                    similarities: Sequence[float | None] | None = None) -> list[float]:
        if not passages:
            return []
        payload = {"model": self.name, "query": query, "documents": list(passages)}
        for attempt in range(self.max_retries + 1):
            try:
                response = await self._client.post(self.url, json=payload)
                if response.status_code == 429 or response.status_code >= 500:
                    raise httpx.HTTPStatusError("retryable", request=response.request, response=response)
                response.raise_for_status()
                break
            except (httpx.TransportError, httpx.HTTPStatusError) as exc:
                retryable = not isinstance(exc, httpx.HTTPStatusError) or exc.response.status_code in (429,) or (
                    exc.response.status_code >= 500
                )
                if not retryable or attempt == self.max_retries:
                    raise ModelError(f"reranker {self.url} failed: {exc}") from exc
                await asyncio.sleep(min(2**attempt, 30))
        scores = [0.0] * len(passages)
        for item in response.json()["results"]:
            scores[item["index"]] = float(item["relevance_score"])
        return scores
