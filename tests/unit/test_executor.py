"""The executor without a database: dependency order, side-by-side steps, typed inputs, failures named by
their step, plans as JSON, and the BookRAG ablations as plan substitutions."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel, ConfigDict

from bookrag_neo4j.errors import PlanError, StepError
from bookrag_neo4j.methods.bookrag import bookrag_plan, no_selector, one_reasoner
from bookrag_neo4j.ops.executor import check, execute
from bookrag_neo4j.ops.operator_registry import OPERATORS, NoParams, RunContext, operator
from bookrag_neo4j.ops.values import EvidenceSet, Ranking, Scores, Selection
from bookrag_neo4j.retrieval.plan import Plan, PlanStep
from bookrag_neo4j.retrieval.planner import Understanding
from bookrag_neo4j.retrieval.planner_replies import GlobalFilter, GlobalPlan, SubQuestion
from bookrag_neo4j.retrieval.results import EvidenceNode

EVENTS: list[str] = []


class KeysParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    keys: list[str]
    delay: float = 0.0


if "Test_Keys" not in OPERATORS:
    @operator("Test_Keys", family="test", params=KeysParams)
    async def _keys(ctx: RunContext, p: KeysParams) -> Selection:
        """Fixed keys, after a delay."""
        EVENTS.append(f"start {p.keys}")
        await asyncio.sleep(p.delay)
        EVENTS.append(f"end {p.keys}")
        return Selection(keys=p.keys)

    @operator("Test_Union", family="test")
    async def _union(ctx: RunContext, p: NoParams, selections: list[Selection], extra: Scores | None) -> Ranking:
        """The selections' keys, in ``after`` order."""
        return Ranking(keys=[k for s in selections for k in s.keys], text=extra.values if extra else {})

    @operator("Test_Evidence", family="test", params=KeysParams)
    async def _evidence(ctx: RunContext, p: KeysParams) -> EvidenceSet:
        """One evidence node a key, of the document named before its first "-"."""
        return EvidenceSet(nodes=[EvidenceNode(key=k, doc_key=k.split("-")[0], document=k.split("-")[0],
                                               kind="text") for k in p.keys])

    @operator("Test_Fail", family="test")
    async def _fail(ctx: RunContext, p: NoParams, selection: Selection) -> Selection:
        """Always raises."""
        raise RuntimeError("boom")


def ctx(lead: str | None = None) -> RunContext:
    return RunContext(db=None, settings=None, models=None, llm=None, documents=[], lead=lead)  # type: ignore[arg-type]


def plan(*steps: PlanStep, output: str = "") -> Plan:
    return Plan(question="q", steps=list(steps), output=output)


async def test_steps_run_in_dependency_order_and_side_by_side() -> None:
    EVENTS.clear()
    p = plan(PlanStep(id="u", operator="Test_Union", after=["slow", "fast"]),
             PlanStep(id="slow", operator="Test_Keys", params={"keys": ["a"], "delay": 0.05}),
             PlanStep(id="fast", operator="Test_Keys", params={"keys": ["b"]}))
    run = await execute(p, ctx())
    assert run.outputs["u"].keys == ["a", "b"]  # inputs in `after` order, not in finishing order
    assert EVENTS == ["start ['a']", "start ['b']", "end ['b']", "end ['a']"]  # both started before either ended
    assert [t.step for t in run.trace] == ["u", "slow", "fast"]  # the trace follows the plan
    assert run.trace[0].inputs == ["slow: 1 nodes", "fast: 1 nodes"] and run.trace[0].output == "2 kept"
    assert run.trace[1].seconds >= 0.05


async def test_the_lead_documents_evidence_comes_first_in_every_evidence_set() -> None:
    """A document routed far above the others leads: its nodes first, each document's in the method's order."""
    p = plan(PlanStep(id="e", operator="Test_Evidence", params={"keys": ["b-1", "a-1", "b-2", "a-2"]}), output="e")
    assert [n.key for n in (await execute(p, ctx())).outputs["e"].nodes] == ["b-1", "a-1", "b-2", "a-2"]
    assert [n.key for n in (await execute(p, ctx(lead="a"))).outputs["e"].nodes] == ["a-1", "a-2", "b-1", "b-2"]
    counted = EvidenceSet(nodes=(await execute(p, ctx())).outputs["e"].nodes, count=2)
    assert counted.led_by("a") is counted  # a count's first nodes are those counted


async def test_until_runs_only_what_the_target_reads() -> None:
    p = plan(PlanStep(id="a", operator="Test_Keys", params={"keys": ["a"]}),
             PlanStep(id="b", operator="Test_Keys", params={"keys": ["b"]}),
             PlanStep(id="u", operator="Test_Union", after=["a"]))
    run = await execute(p, ctx(), until="u")
    assert set(run.outputs) == {"a", "u"}


async def test_a_failing_step_ends_the_run_naming_the_step() -> None:
    p = plan(PlanStep(id="a", operator="Test_Keys", params={"keys": ["a"]}),
             PlanStep(id="bad", operator="Test_Fail", after=["a"]),
             PlanStep(id="u", operator="Test_Union", after=["bad"]))
    with pytest.raises(StepError, match=r"step 'bad' \(Test_Fail\) failed: RuntimeError: boom") as info:
        await execute(p, ctx())
    assert info.value.step == "bad" and isinstance(info.value.__cause__, RuntimeError)


async def test_plans_are_checked_before_they_run() -> None:
    with pytest.raises(PlanError, match="no operator 'Nope'"):
        check(plan(PlanStep(id="x", operator="Nope")))
    with pytest.raises(PlanError, match="invalid parameters"):
        check(plan(PlanStep(id="x", operator="Test_Keys", params={"keys": "a", "typo": 1})))
    with pytest.raises(PlanError, match="cycle"):
        check(plan(PlanStep(id="x", operator="Test_Union", after=["y"]),
                   PlanStep(id="y", operator="Test_Union", after=["x"])))
    with pytest.raises(ValueError, match="unknown steps"):
        plan(PlanStep(id="x", operator="Test_Union", after=["missing"]))
    with pytest.raises(PlanError, match="needs one Selection as 'selection'"):  # typed inputs
        await execute(plan(PlanStep(id="bad", operator="Test_Fail")), ctx())
    with pytest.raises(PlanError, match="no step '' to run to"):  # a plan for retrieval without its output
        await execute(plan(PlanStep(id="x", operator="Test_Keys", params={"keys": ["a"]})), ctx(), until="")


def test_a_plan_round_trips_as_json() -> None:
    seen = Understanding("multi-hop", "llm", sub_questions=[SubQuestion(question="A?", type="retrieval"),
                                                              SubQuestion(question="B?", type="retrieval"),
                                                              SubQuestion(question="Which?", type="synthesis")])
    p = bookrag_plan("A or B?", seen)
    again = Plan.model_validate_json(p.model_dump_json())
    assert again == p and again.output == "merge" and again.answer == "reduce"
    check(again)
    assert [s.id for s in again.steps if s.operator == "Extract"] == ["q0.extract", "q1.extract"]


def test_bookrag_plans_per_category() -> None:
    single = bookrag_plan("What is Ursa?", Understanding("single-hop", "heuristic"))
    assert [s.operator for s in single.steps] == [
        "Embed", "Extract", "Select_by_Entity", "Select_by_Section", "Fetch", "Graph_Reasoning", "Text_Reasoning",
        "Skyline_Ranker", "Fetch_Evidence", "Map", "Reduce"]
    count = bookrag_plan("How many tables on pages 3-10?", Understanding("global", "heuristic", global_plan=GlobalPlan(
        filters=[GlobalFilter(filter_type="page", filter_value="3-10"), GlobalFilter(filter_type="table")],
        operation="COUNT")))
    assert [(s.id, s.operator, s.after) for s in count.steps] == [  # the count, shown with its ranked nodes
        ("f0", "Filter_Range", []), ("f1", "Filter_Modal", ["f0"]), ("embed", "Embed", []),
        ("fetch", "Fetch", ["f1", "embed"]), ("text", "Text_Reasoning", ["fetch", "embed"]),
        ("rank", "Top_K", ["fetch", "text", "f1"]), ("evidence", "Fetch_Evidence", ["rank"]),
        ("count", "Count", ["f1", "fetch", "evidence"]), ("reduce", "Reduce", ["count"])]
    assert count.output == "count" and count.step("fetch").params == {"widen": False, "fill": True}
    # a count that says more than its filters hold is answered from the filtered nodes read (ranked, cut)
    said = bookrag_plan("How many tables are sourced from the survey?", Understanding(
        "global", "heuristic", global_plan=GlobalPlan(filters=[GlobalFilter(filter_type="table")], operation="COUNT")))
    assert [s.operator for s in said.steps] == ["Filter_Modal", "Embed", "Fetch", "Text_Reasoning", "Top_K",
                                                "Fetch_Evidence", "Map", "Reduce"]
    assert said.output == "evidence" and said.steps[-1].params["operation"] == "COUNT"
    unsplit = bookrag_plan("Is A larger than B?", Understanding("multi-hop", "heuristic"))
    assert unsplit.notes == ["no LLM to decompose: retrieved as one question"] and unsplit.output == "evidence"


def test_ablations_are_substitutions() -> None:
    seen = Understanding("multi-hop", "llm", sub_questions=[SubQuestion(question="A?", type="retrieval"),
                                                              SubQuestion(question="B?", type="retrieval")])
    base = bookrag_plan("A or B?", seen)
    flat = no_selector(base)
    assert [s.id for s in flat.steps if s.operator == "Select_All"] == ["q0.select_all", "q1.select_all"]
    assert not [s for s in flat.steps if s.operator.startswith("Select_by")]
    assert flat.step("q1.fetch").after == ["q1.select_all", "q1.embed"]
    check(flat)
    text_only = one_reasoner(base, keep="text")
    assert not [s for s in text_only.steps if s.operator == "Graph_Reasoning"]
    assert text_only.step("q0.skyline").operator == "Top_K" and text_only.step("q0.skyline").params == {"by": "text"}
    assert text_only.step("q0.skyline").after == ["q0.fetch", "q0.text"]
    check(text_only)
