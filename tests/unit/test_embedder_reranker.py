"""Rerankers without a model: BM25, and the /rerank endpoint against a real local HTTP server. (The real offline
embedder, fusion and the CrossEncoder: ``tests/integration/test_embedder_reranker.py``.)"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence

import numpy as np
import pytest
from pytest_httpserver import HTTPServer

from bookrag_neo4j.errors import ModelError
from bookrag_neo4j.llm import HTTPReranker
from bookrag_neo4j.llm.embedder import Embedder
from bookrag_neo4j.llm.reranker import FusionReranker
from bookrag_neo4j.text.lexical import LexicalStats, Postings, bm25_scores


@pytest.fixture
def server() -> Iterator[HTTPServer]:
    srv = HTTPServer()
    srv.start()
    yield srv
    srv.clear()
    if srv.is_running():
        srv.stop()


def test_bm25() -> None:
    scores = bm25_scores("neo4j graph", ["neo4j is a graph database", "a database", "graph graph graph theory"])
    assert scores[0] > scores[2] > scores[1] == 0.0
    assert bm25_scores("anything", []) == []
    # IDF from a whole collection's statistics, not from the candidates: among these two candidates both terms
    # look alike; in the collection "revenue" is rare and "tax" common, so the revenue block ranks first
    candidates = ["tax", "revenue"]
    alone = bm25_scores("revenue tax", candidates)
    assert alone[0] == pytest.approx(alone[1])
    whole = LexicalStats(blocks=1000, average_length=1.0, document_frequency={"revenue": 3, "tax": 400})
    scored = bm25_scores("revenue tax", candidates, stats=whole)
    assert scored[1] > 5 * scored[0] > 0


def test_postings_give_okapi_bm25_and_their_texts_statistics() -> None:
    texts = ["a b", "b", ""]
    lexicon = Postings.of(texts)
    assert lexicon.stats == LexicalStats.of(texts) and lexicon.lengths.tolist() == [2, 1, 0]
    norm = 1.5 * (0.25 + 0.75 * 2 / 1.0)  # k1 (1 - b + b |d| / avgdl), avgdl = 3 / 3
    expected = math.log((3 - 1 + 0.5) / 1.5 + 1) * 2.5 / (1 + norm) + math.log((3 - 2 + 0.5) / 2.5 + 1) * 2.5 / (1 + norm)
    assert lexicon.bm25("b a").tolist()[0] == pytest.approx(expected) and lexicon.bm25("b a")[2] == 0.0
    assert lexicon.bm25("b a").tolist() == bm25_scores("b a", texts)


async def test_http_reranker(server: HTTPServer) -> None:
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


def test_bm25_takes_idf_and_length_from_a_collections_statistics() -> None:
    document = ["net sales rose", "net income fell", "net cash used", "dividends paid"]
    stats = LexicalStats.of(document)
    assert (stats.blocks, stats.average_length, stats.document_frequency["net"]) == (4, 11 / 4, 3)
    candidates = ["net sales grew", "dividends paid out"]
    alone = bm25_scores("net dividends", candidates)  # among the candidates "net" is as rare as "dividends"
    within = bm25_scores("net dividends", candidates, stats=stats)  # in the document, "net" is everywhere
    assert alone[0] == pytest.approx(alone[1]) and within[1] > within[0]


class _Fixed(Embedder):
    """Unit vectors by text: the query along x, "near" at cosine 0.5 to it."""

    name = "fixed"
    dimension = 2
    vectors = {"query": [1.0, 0.0], "near": [0.5, 3 ** 0.5 / 2], "far": [0.0, 1.0]}

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.vectors[t] for t in texts]


async def test_fusion_reranker_embeds_a_passage_without_a_similarity_on_the_same_scale() -> None:
    """Given similarities are (1 + cos) / 2; one embedded now must be too, or its raw cosine ranks it below
    every given one (cos 0.5 -> 0.75, above a given 0.6, that is cos 0.2)."""
    scores = await FusionReranker(_Fixed()).score("query", ["given", "near", "far"], similarities=[0.6, None, None],
                                                  lexical=[0.0, 0.0, 0.0])
    assert scores[1] > scores[0] > scores[2]


async def test_fusion_reranker_ranks_among_a_population_whatever_the_others_scored() -> None:
    """Ranked among the passages alone, a passage's score depends on which others were selected with it; ranked
    among its document's blocks (``population``), it does not (Text_Reasoning over a selection scores a block
    as over the whole document)."""
    reranker = FusionReranker(_Fixed())
    population = (np.array([0.9, 0.8, 0.7, 0.6, 0.5]), np.array([5.0, 4.0, 3.0, 2.0, 1.0]))
    alone = await reranker.score("query", ["a", "b"], similarities=[0.7, 0.5], lexical=[3.0, 1.0])
    among_two = await reranker.score("query", ["a", "b"], similarities=[0.7, 0.5], lexical=[3.0, 1.0],
                                     population=population)
    among_one = await reranker.score("query", ["a"], similarities=[0.7], lexical=[3.0], population=population)
    assert alone[0] == pytest.approx(1.0)  # first of the two: the best score there is
    assert among_two[0] == pytest.approx(among_one[0]) == pytest.approx(1 / (60 + 3) / (1 / (60 + 1)))
    tied = await reranker.score("query", ["a"], similarities=[0.7 + 1e-12], lexical=[3.5], population=population)
    assert tied[0] == pytest.approx((1 / 63 + 1 / 63) / (2 / 61))  # equal within tolerance shares the rank; 3.5 is third


def test_a_documents_population_is_its_blocks_and_none_for_a_vector_of_another_dimension() -> None:
    """Text_Reasoning ranks a block among its document's blocks: their similarities (those with an embedding)
    and every block's BM25; a question vector of another dimension has no population (its candidates are embedded
    anew and ranked among each other, not all first among nothing)."""
    from bookrag_neo4j.retrieval.document_blocks import BlockRow, read_blocks

    def row(key: str, text: str) -> BlockRow:
        return BlockRow(key=key, doc_key="d", order=int(key[1:]), kind="text", section_path="", title="", page_start=1,
                        page_end=1, text=text)

    blocks = read_blocks([row("b1", "net sales grew"), row("b2", "dividends paid"), row("b3", "an image")])
    found = np.array([1.0, 0.5, np.nan])  # block_similarities: NaN without an embedding
    similarities, bm25 = blocks.population("net sales", found)
    assert similarities.tolist() == [1.0, 0.5] and len(bm25) == 3 and bm25[0] > 0 == bm25[1]
    assert [c.similarity for c in blocks.candidates(["b2", "b1"], found)] == similarities[::-1].tolist()
    assert blocks.population("net sales", np.zeros(0)) is None  # no embedding of the question's dimension
