"""Search operators that need no database: reciprocal-rank fusion and the Lucene escaping of questions."""

from __future__ import annotations

from bookrag_neo4j.ops.registry import RunContext
from bookrag_neo4j.ops.search import FuseParams, fuse, lucene_terms
from bookrag_neo4j.ops.values import Ranking


async def test_fuse_sums_reciprocal_ranks() -> None:
    ctx = RunContext(graph=None, settings=None, models=None, llm=None, documents=[])  # type: ignore[arg-type]
    a, b = Ranking(keys=["x", "y", "z"]), Ranking(keys=["y", "w"])
    fused = await fuse(ctx, FuseParams(k=60, top=3), [a, b])
    assert fused.keys == ["y", "x", "w"]  # y: 1/62 + 1/61 beats x: 1/61
    assert fused.text["y"] == 1 / 62 + 1 / 61 and fused.text["x"] == 1 / 61


def test_lucene_terms_escape_the_query_syntax() -> None:
    assert lucene_terms('What is "R&D" (net)?') == r'What is \"R\&D\" \(net\)\?'
    assert lucene_terms("cats AND dogs: NOT both") == r"cats and dogs\: not both"
    assert lucene_terms("  a\n b ") == "a b"
