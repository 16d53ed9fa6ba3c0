"""Entity resolution's candidates come from an in-memory matrix of the document's entities: exact cosine top k
with a floor, earlier nodes only; gradient ER merges a variant and keeps a dissimilar name new."""

from __future__ import annotations

import numpy as np
import pytest

from bookrag_neo4j.kg.er_scores import NameScorer
from bookrag_neo4j.kg.resolve import EntityMatrix, Resolver
from bookrag_neo4j.text.extraction import ExtractedEntity, Extraction


def unit(*xs: float) -> list[float]:
    v = np.asarray(xs, dtype=np.float32)
    return (v / np.linalg.norm(v)).tolist()


def test_nearest_is_exact_top_k_above_the_floor_among_the_first_rows() -> None:
    m = EntityMatrix()
    rng = np.random.default_rng(7)
    rows = rng.normal(size=(200, 16)).astype(np.float32)
    for i, row in enumerate(rows):
        m.add(f"e{i}", (row * (i + 1)).tolist())  # lengths differ: cosine, not dot product
    query = rows[5] + 0.1 * rng.normal(size=16).astype(np.float32)
    unit_rows = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    sims = unit_rows @ (query / np.linalg.norm(query))
    expected = [f"e{i}" for i in np.argsort(-sims)[:10] if sims[i] >= 0.2]
    assert m.nearest([query.tolist()], among=200, top=10, floor=0.2) == [expected]
    assert expected[0] == "e5"
    among = m.nearest([query.tolist()], among=5, top=10, floor=-1.0)[0]  # only rows 0-4 are visible
    assert sorted(among) == [f"e{i}" for i in range(5)]
    assert m.nearest([query.tolist()], among=0, top=10, floor=0.0) == [[]]
    assert m.nearest([query.tolist()], among=200, top=10, floor=1.01) == [[]]


async def test_gradient_er_merges_a_variant_of_an_earlier_node_only() -> None:
    resolver = Resolver("doc", mode="gradient", scorer=NameScorer(), top_k=10, similarity_floor=0.6)
    apple = unit(1, 0.05, 0)
    first = Extraction(entities=[ExtractedEntity(name="Apple Inc.", type="ORGANIZATION"),
                                 ExtractedEntity(name="Apple Computer Inc.", type="ORGANIZATION")])
    keys1 = await resolver.add_node("n1", first, [apple, apple])
    assert len(set(keys1.values())) == 2 and resolver.stats.merges == 0  # one node's entities: no candidates
    second = Extraction(entities=[ExtractedEntity(name="APPLE INC.", type="PRODUCT"),
                                  ExtractedEntity(name="Pear Computers", type="ORGANIZATION")])
    keys2 = await resolver.add_node("n2", second, [unit(1, 0.04, 0), unit(0, 1, 0)])
    assert keys2["apple inc."] == keys1["apple inc."]  # the same name under another type: merged
    assert keys2["pear computers"] not in keys1.values()  # cosine below the floor: new
    assert resolver.stats.merges == 1 and resolver.stats.lookups == 2 and len(resolver.entities) == 3


@pytest.mark.parametrize("mode", ["basic", "gradient"])
async def test_structural_entities_are_never_candidates(mode: str) -> None:
    resolver = Resolver("doc", mode=mode, scorer=NameScorer())
    await resolver.add_node("n1", Extraction(entities=[ExtractedEntity(name="Table 1", type="TABLE")]), [unit(1, 0)])
    assert len(resolver.matrix) == 0


async def test_names_are_embedded_once_per_builder(tmp_path) -> None:
    from bookrag_neo4j.config import Settings
    from bookrag_neo4j.kg.build import GraphBuilder
    from bookrag_neo4j.llm.factory import Models
    from bookrag_neo4j.llm.reranker import FusionReranker

    from ..helpers.models import NearbyEmbedder

    class Counting(NearbyEmbedder):
        texts: list[str] = []

        async def embed(self, texts):  # noqa: ANN001, ANN202
            type(self).texts += list(texts)
            return await super().embed(texts)

    embedder = Counting(8)
    models = Models(llm=None, vlm=None, embedder=embedder, reranker=FusionReranker(embedder))
    builder = GraphBuilder(None, Settings(cache_dir=tmp_path), models, use_llm=False,  # type: ignore[arg-type]
                           extractor=object(), scorer=NameScorer())  # type: ignore[arg-type]
    doc1 = [Extraction(entities=[ExtractedEntity(name="R"), ExtractedEntity(name="lm")]),
            Extraction(entities=[ExtractedEntity(name="lm")])]
    doc2 = [Extraction(entities=[ExtractedEntity(name="lm"), ExtractedEntity(name="glm")])]
    first = await builder._embed_names(doc1)
    second = await builder._embed_names(doc2)
    assert Counting.texts == ["R", "lm", "glm"]  # each distinct name once, "lm" again from the cache
    assert second["lm"] == first["lm"] and set(second) == {"lm", "glm"}
