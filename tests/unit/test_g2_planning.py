"""G²-Reader's planning graph: DAG checks and order (children first, so a node sees its children's answers),
refinement up to tau_max and on "sufficient", unparsable checker replies as failures (not rounds), the offline
comparison split and coverage checker. The reader here is a function over fixed passages (the readout against
the real server is tested in tests/integration/test_g2.py)."""

from __future__ import annotations

import asyncio
import json

import pytest

from bookrag_neo4j.llm.scripted import ScriptedChatModel
from bookrag_neo4j.ops.g2_agent import allot, plan_and_read
from bookrag_neo4j.retrieval.g2.planning import (
    DagReply,
    PlanningGraph,
    comparison_dag,
    comparison_sides,
    coverage_gaps,
    question_terms,
)
from bookrag_neo4j.retrieval.results import EvidenceNode

PASSAGES = {"p1": "Revenue in 2019 was 10 million dollars.", "p2": "Revenue in 2020 was 12 million dollars.",
            "p3": "The company sells bicycles in Europe."}


def _words(text: str) -> set[str]:
    return {w.strip("?,.") for w in text.lower().split()}


async def reader(text: str) -> list[EvidenceNode]:
    """The two passages that share the most rare words with the text (words weighted by 1 / document frequency)."""
    df = {w: sum(w in _words(p) for p in PASSAGES.values()) for w in _words(text)}
    ranked = sorted(PASSAGES, key=lambda k: -sum(1 / df[w] for w in _words(text) & _words(PASSAGES[k])))
    return [EvidenceNode(key=k, doc_key="d", document="d.pdf", kind="passage", text=PASSAGES[k], page_start=1,
                         page_end=1) for k in ranked[:2]]


def dag(nodes: list[dict]) -> str:
    return "<dag>\n" + json.dumps({"nodes": nodes, "edges": []}) + "\n</dag>"


def test_the_dag_runs_children_first_and_is_checked() -> None:
    reply = DagReply.model_validate_json(json.dumps({"nodes": [
        {"id": "root", "task": "x", "children": ["n1"]}, {"id": "n1", "task": "a", "children": ["n2"]},
        {"id": "n2", "task": "b"}], "edges": [{"from": "root", "to": "n2"}]}))
    graph = PlanningGraph.from_reply(reply, "the question", max_nodes=6)
    assert graph.order() == ["n2", "n1", "root"] and graph.node("root").task == "the question"
    assert graph.node("root").children == ["n1", "n2"] and graph.depth() == 3
    bad = [
        {"nodes": [{"id": "n1", "task": "a"}]},                                            # no root
        {"nodes": [{"id": "root", "task": "x", "children": ["n9"]}]},                      # unknown child
        {"nodes": [{"id": "root", "task": "x", "children": ["n1"]}, {"id": "n1", "task": "a", "children": ["root"]}]},
        {"nodes": [{"id": "root", "task": "x", "children": ["n1"]}, {"id": "n1", "task": "a", "children": ["n2"]},
                   {"id": "n2", "task": "b", "children": ["n3"]}, {"id": "n3", "task": "c"}]},  # depth 4
        {"nodes": [{"id": "root", "task": "x"}] + [{"id": f"n{i}", "task": "t"} for i in range(6)]},  # 7 nodes
    ]
    for nodes in bad:
        with pytest.raises(ValueError):
            PlanningGraph.from_reply(DagReply.model_validate(nodes), "q", max_nodes=6)


def test_the_offline_decomposer_splits_comparisons() -> None:
    assert comparison_sides("Which is larger, revenue in 2019 or 2020?") == ["2019", "2020"]
    assert comparison_dag("Which is larger, revenue in 2019 or 2020?").describe() == (
        "n1: Which is larger, revenue in 2019?; n2: Which is larger, revenue in 2020?; "
        "root <- n1,n2: Which is larger, revenue in 2019 or 2020?")
    graph = comparison_dag("What is the difference between operating income and net income?")
    assert [n.task for n in graph.nodes[1:]] == ["What is the difference between operating income?",
                                                 "What is the difference between net income?"]
    assert comparison_dag("What was the revenue in 2019?").nodes == PlanningGraph.single(
        "What was the revenue in 2019?").nodes


def test_the_coverage_checker_finds_the_missing_terms() -> None:
    assert question_terms("What was 3M's revenue in FY2018?") == ["FY2018", "3M's", "revenue"]
    texts = ["Revenues were 10 million in FY2018."]
    assert coverage_gaps("What was the revenue of Acme in FY2018?", texts) == ["Acme"]
    assert coverage_gaps("What was the revenue of Acme in FY2018?", [*texts, "Acme Inc."]) == []
    assert coverage_gaps("How many modules are proposed?", texts) == []  # common words are not looked for


def test_sub_questions_add_to_the_questions_evidence_within_the_budget() -> None:
    question = ["a", "b", "c", "d", "e", "f"]
    assert allot(question, [], 4) == ["a", "b", "c", "d"]
    assert allot(question, [["x", "a", "y"], ["z"]], 4) == ["a", "b", "x", "z"]  # half the budget, in turn
    assert allot(question, [["b", "x"], ["x", "w"]], 5) == ["a", "b", "c", "x", "w"]  # each key once
    assert allot(question, [["a", "b"]], 4) == ["a", "b", "c", "d"]  # nothing new: the question's own


def test_offline_planning_refines_until_nothing_is_missing() -> None:
    question = "Which was larger, revenue in 2019 or 2020, in Europe for Acme?"
    result = asyncio.run(plan_and_read(question, read=reader, llm=None, k=3, tau_max=3))
    first, last = result.rounds[0], result.rounds[-1]
    assert first.dag.startswith("root:") and first.verdict.gaps == ["Europe", "Acme"]
    # "Acme" is nowhere: tried once; then nothing new is left to try and refinement stops
    assert len(result.rounds) == 2 and not last.verdict.sufficient and last.verdict.gaps == []
    assert any("nothing new" in n for n in last.notes)
    assert set(result.keys) == {"p1", "p2", "p3"}  # the gap node for "Europe" brought p3


def test_a_parent_sees_its_childrens_answers_and_refinement_stops_at_tau_max() -> None:
    decomposition = dag([{"id": "root", "task": "q", "children": ["n1"]}, {"id": "n1", "task": "revenue 2019"}])
    refined = dag([{"id": "root", "task": "q", "children": ["n1", "n2"]}, {"id": "n1", "task": "revenue 2019"},
                   {"id": "n2", "task": "revenue 2020"}])
    insufficient = '<check>{"sufficient": false, "gaps": ["2020 revenue"]}</check>'

    def script(messages: list[dict]) -> str:
        text = messages[-1]["content"]
        if "break down the given question" in text:
            return decomposition
        if "adjustment round" in text:
            return refined
        if "evidence checker" in messages[0]["content"]:
            return insufficient
        return "<thought>read it</thought><output>answer to " + text.split("this question: ")[-1][:20] + "</output>"

    llm = ScriptedChatModel(script)
    result = asyncio.run(plan_and_read("What was revenue?", read=reader, llm=llm, k=3, tau_max=2))
    assert len(result.rounds) == 3  # the first run, then tau_max = 2 refinements
    assert all(r.verdict is not None and not r.verdict.sufficient for r in result.rounds)
    workers = [m[-1]["content"] for m in llm.requests if "What is the only correct answer" in m[-1]["content"]]
    root_prompts = [w for w in workers if "this question: What was revenue?" in w]
    assert root_prompts and all("Answers of its sub-tasks" in w and "revenue 2019" in w for w in root_prompts)
    assert workers.index(root_prompts[0]) > 0  # the child ran first
    assert result.pairs[0][1].startswith("answer to")


def test_sufficient_stops_and_an_unparsable_checker_reply_is_not_a_round() -> None:
    replies = iter(["not json at all", "still not json", '<check>{"sufficient": true, "gaps": []}</check>'])

    def script(messages: list[dict]) -> str:
        if "break down the given question" in messages[-1]["content"]:
            return dag([{"id": "root", "task": "q"}])
        if "evidence checker" in messages[0]["content"]:
            return next(replies)
        return "<output>ok</output>"

    result = asyncio.run(plan_and_read("What was revenue?", read=reader, llm=ScriptedChatModel(script), k=2,
                                       tau_max=3))
    # the first reply and its re-ask fail (one failure), the second call succeeds: one round, sufficient
    assert len(result.rounds) == 1 and result.failures == 1 and result.rounds[0].verdict.sufficient
    assert any("not a round" in n for n in result.rounds[0].notes)
