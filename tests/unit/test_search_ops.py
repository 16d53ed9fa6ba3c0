"""Search operators that need no database: reciprocal-rank fusion, the Lucene escaping of questions, and when the
cross-page merge joins two passages."""

from __future__ import annotations

from bookrag_neo4j.db.lucene import lucene_terms
from bookrag_neo4j.ops.operator_registry import RunContext
from bookrag_neo4j.ops.search import FuseParams, fuse
from bookrag_neo4j.ops.superrag import continues
from bookrag_neo4j.ops.values import Ranking


async def test_fuse_sums_reciprocal_ranks() -> None:
    ctx = RunContext(db=None, settings=None, models=None, llm=None, documents=[])  # type: ignore[arg-type]
    a, b = Ranking(keys=["x", "y", "z"]), Ranking(keys=["y", "w"])
    fused = await fuse(ctx, FuseParams(k=60, top=3), [a, b])
    assert fused.keys == ["y", "x", "w"]  # y: 1/62 + 1/61 beats x: 1/61
    assert fused.text["y"] == 1 / 62 + 1 / 61 and fused.text["x"] == 1 / 61


def test_lucene_terms_escape_the_query_syntax() -> None:
    assert lucene_terms('What is "R&D" (net)?') == r'What is \"R\&D\" \(net\)\?'
    assert lucene_terms("cats AND dogs: NOT both") == r"cats and dogs\: not both"
    assert lucene_terms("  a\n b ") == "a b"


def test_the_cross_page_merge_joins_only_a_sentence_cut_by_the_page_break() -> None:
    assert continues("Net sales rose in all three", "segments, led by North America.")
    assert continues("the outlook, which we revised,", "Management expects")  # stops on a comma
    assert continues("a well-known long-", "Term contract")  # a hyphen at the break
    assert not continues("Net sales rose 9%.", "operating income fell.")  # the sentence has ended
    assert not continues("Item 7. Management's Discussion", "Overview")  # a heading, then a new start
    assert not continues("", "anything") and not continues("Cut off", "")
