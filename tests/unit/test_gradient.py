"""The gradient rule of entity resolution on hand-chosen scores."""

from __future__ import annotations

import doctest

from bookrag_neo4j.kg import gradient
from bookrag_neo4j.kg.gradient import Scored, gradient_decision


def s(*scores: float) -> list[Scored]:
    return [Scored(f"e{i}", x) for i, x in enumerate(scores)]


def test_clear_alias_merges() -> None:
    decision = gradient_decision(s(0.30, 0.95, 0.28, 0.10))  # unsorted input
    assert decision.action == "merge" and [c.key for c in decision.kept] == ["e1"]


def test_no_gradient_means_a_new_entity() -> None:
    decision = gradient_decision(s(0.80, 0.78, 0.75, 0.70))  # every candidate kept: nothing stands out
    assert decision.action == "new" and len(decision.kept) == 4


def test_several_kept_go_to_the_judge() -> None:
    decision = gradient_decision(s(0.90, 0.85, 0.20, 0.10))
    assert decision.action == "judge" and [c.key for c in decision.kept] == ["e0", "e1"]


def test_gradient_threshold_is_relative_to_the_previous_kept_score() -> None:
    # at g=0.6: 0.56 >= 0.9 * 0.6 is kept, 0.30 < 0.56 * 0.6 is the drop; at g=0.7, 0.56 < 0.63 already drops
    assert [c.key for c in gradient_decision(s(0.9, 0.56, 0.30)).kept] == ["e0", "e1"]
    assert gradient_decision(s(0.9, 0.56, 0.30), gradient=0.7).action == "merge"


def test_gates() -> None:
    assert gradient_decision([]).action == "new"
    assert gradient_decision(s(0.40, 0.05)).action == "new"  # top below min_score
    assert gradient_decision(s(0.95)).action == "merge"
    assert gradient_decision(s(0.70)).action == "new"  # one candidate: no gradient to read


def test_docstring_example() -> None:
    assert doctest.testmod(gradient).failed == 0
