"""Skyline dominance, backfill and cap; the planner: its heuristics, a scripted LLM per category, a failed reply,
a given category. (Operators on a hand-built BookIndex in Neo4j: ``tests/integration/test_retrieval.py``.)"""

from __future__ import annotations

import json

from bookrag_neo4j.llm.scripted import ScriptedChatModel
from bookrag_neo4j.methods import METHODS
from bookrag_neo4j.retrieval.planner import heuristic_category, heuristic_global_plan
from bookrag_neo4j.retrieval.skyline import pareto_front, skyline


def test_skyline_dominance_backfill_and_cap() -> None:
    points = [("a", 0.9, 0.1), ("b", 0.2, 0.8), ("c", 0.1, 0.1), ("d", 0.5, 0.5), ("e", 0.5, 0.4), ("f", 0.5, 0.5)]
    assert set(pareto_front(points)) == {"a", "b", "d", "f"}  # e is dominated by d; c by everything
    assert skyline(points, minimum=1, maximum=10) == ["b", "d", "f", "a"]  # by min-max normalised sum
    assert set(skyline(points, minimum=5, maximum=10)) == {"a", "b", "d", "f", "e"}  # backfill: best text first
    assert len(skyline(points, minimum=1, maximum=2)) == 2
    assert skyline([], minimum=3) == []
    assert set(skyline([("x", 0.0, 0.3), ("y", 0.0, 0.1)], minimum=2)) == {"x", "y"}


def test_heuristic_planner() -> None:
    assert heuristic_category("How many tables are in the report?") == "global"
    assert heuristic_category("List all figures in section 3.") == "global"
    assert heuristic_category("Which is larger, revenue in 2017 or in 2018?") == "multi-hop"
    assert heuristic_category("What was the revenue in 2017?") == "single-hop"
    spec = heuristic_global_plan("How many figures are between page 3 and 10?")
    assert spec.operation == "COUNT"
    assert [(f.filter_type, f.filter_value) for f in spec.filters] == [("page", "3-10"), ("image", None)]
    spec = heuristic_global_plan('Summarize the section "Related Work".')
    assert spec.operation == "SUMMARIZE" and spec.filters[0].filter_value == "Related Work"


async def test_planner_with_a_scripted_llm() -> None:
    def reply(messages: list[dict]) -> str:
        system = messages[0]["content"]
        if system.startswith("You classify"):
            question = messages[-1]["content"]
            category = "global" if "How many" in question else "multi-hop" if "larger" in question else "single-hop"
            return json.dumps({"category": category})
        if system.startswith("You turn"):
            return json.dumps({"filters": [{"filter_type": "table", "filter_value": None}], "operation": "LIST"})
        return json.dumps({"sub_questions": [{"question": "Revenue in 2017?", "type": "retrieval"},
                                             {"question": "Revenue in 2018?", "type": "retrieval"},
                                             {"question": "Which is larger?", "type": "synthesis"}]})

    llm = ScriptedChatModel(reply)
    make_plan = METHODS["bookrag"].plan
    single = await make_plan("What is Ursa?", llm)
    assert single.category == "single-hop" and single.classified_by == "llm" and single.method == "bookrag"
    assert [s.operator for s in single.steps][-4:] == ["Skyline_Ranker", "Fetch_Evidence", "Map", "Reduce"]
    multi = await make_plan("Which is larger, revenue in 2017 or 2018?", llm)
    assert multi.category == "multi-hop" and len(multi.sub_questions) == 3
    assert sum(s.operator == "Extract" for s in multi.steps) == 2  # synthesis sub-questions get no retrieval
    glob = await make_plan("How many tables are there?", llm)
    assert glob.category == "global" and glob.operation == "LIST"
    assert [s.operator for s in glob.steps] == ["Filter_Modal", "Fetch_Evidence", "Map", "Reduce"]
    assert "Filter_Modal(type='table'" in glob.explain()
    broken = await make_plan("What is Ursa?", ScriptedChatModel(["not json"] * 4))
    assert broken.classified_by == "heuristic"  # a failed reply falls back to the heuristics


async def test_a_given_category_skips_the_classification() -> None:
    llm = ScriptedChatModel(lambda messages: json.dumps(
        {"filters": [{"filter_type": "table", "filter_value": None}], "operation": "COUNT"}))
    make_plan = METHODS["bookrag"].plan
    plan = await make_plan("Tell me about the tables.", llm, category="global")
    assert plan.classified_by == "given" and plan.category == "global" and plan.operation == "COUNT"
    assert len(llm.requests) == 1 and llm.requests[0][0]["content"].startswith("You turn")  # global_filter only
    assert (await make_plan("What is Ursa?", None, category="multi-hop")).classified_by == "given"
