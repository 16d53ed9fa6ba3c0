"""The executor: runs a :class:`~.plan.Plan` in dependency order and returns every step's typed output and
the trace of the run (no state outlives it).

    run = await execute(plan, ctx)                       # every step
    run = await execute(plan, ctx, until=plan.output)    # the evidence step and what it reads
    evidence = run.outputs[plan.output]                   # an EvidenceSet
    for t in run.trace: print(t.step, t.operator, t.seconds, t.output)

Steps whose inputs are ready run side by side (e.g. the two selectors, the two reasoners). Each step's
parameters are validated against its operator's model, and its inputs matched by type to the outputs of
the steps it reads (``after``). A step that raises ends the run with :class:`~bookrag_neo4j.errors.StepError`
naming the step.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from graphlib import CycleError, TopologicalSorter
from typing import TypeVar

from pydantic import ValidationError

from ..errors import PlanError, StepError
from ..llm.usage import track_usage
from ..retrieval.plan import Plan, PlanStep, TraceStep
from . import evidence, g2, query, reason, search, select, superrag, synth  # noqa: F401  (registers the operators)
from .operator_registry import OPERATORS, OperatorSpec, RunContext, step_meter
from .values import EvidenceSet, Value

V = TypeVar("V")


@dataclass(frozen=True)
class Run:
    """What one execution left: each executed step's output by step id, and the trace in plan order."""

    outputs: dict[str, Value]
    trace: list[TraceStep]

    def of_type(self, kind: type[V]) -> list[V]:
        """Every output of this type, in plan order of the steps (e.g. all Entities of a multi-hop run)."""
        return [v for v in self.outputs.values() if isinstance(v, kind)]


def _needed(plan: Plan, until: str | None) -> dict[str, PlanStep]:
    steps = {s.id: s for s in plan.steps}
    if until is None:
        return steps
    if until not in steps:
        raise PlanError(f"the plan has no step {until!r} to run to (a plan to retrieve with names its evidence "
                        "step as its output)")
    wanted, todo = set(), [until]
    while todo:
        sid = todo.pop()
        if sid not in wanted:
            wanted.add(sid)
            todo += steps[sid].after
    return {sid: s for sid, s in steps.items() if sid in wanted}


def _arguments(step: PlanStep, spec: OperatorSpec, outputs: dict[str, Value]) -> dict[str, Value | list[Value] | None]:
    given = [outputs[a] for a in step.after]
    args: dict[str, Value | list[Value] | None] = {}
    for item in spec.inputs:
        matches = [v for v in given if isinstance(v, item.type)]
        if item.many:
            args[item.name] = matches
        elif len(matches) == 1:
            args[item.name] = matches[0]
        elif not matches and item.optional:
            args[item.name] = None
        else:
            found = ", ".join(type(v).__name__ for v in given) or "nothing"
            raise PlanError(f"step {step.id!r} ({spec.name}) needs one {item.type.__name__} as {item.name!r} "
                            f"from the steps it reads ({', '.join(step.after) or 'none'}), which give {found}")
    return args


def check(plan: Plan) -> None:
    """Raise :class:`PlanError` unless every operator is registered, every step's parameters are valid and
    the steps form no cycle."""
    for step in plan.steps:
        spec = OPERATORS.get(step.operator)
        if spec is None:
            raise PlanError(f"step {step.id!r}: no operator {step.operator!r}; known: {', '.join(sorted(OPERATORS))}")
        try:
            spec.params.model_validate(step.params)
        except ValidationError as exc:
            raise PlanError(f"step {step.id!r} ({step.operator}): invalid parameters: {exc}") from None
    try:
        TopologicalSorter({s.id: s.after for s in plan.steps}).prepare()
    except CycleError as exc:
        raise PlanError(f"the plan's steps form a cycle: {exc.args[1]}") from None


async def _run_step(step: PlanStep, ctx: RunContext, outputs: dict[str, Value]) -> tuple[Value, TraceStep]:
    spec = OPERATORS[step.operator]
    params = spec.params.model_validate(step.params)
    args = _arguments(step, spec, outputs)
    began = time.perf_counter()
    with track_usage() as ledger, step_meter() as meter:
        try:
            result = await spec.fn(ctx, params, **args)
        except Exception as exc:  # any failure ends the run, named by its step
            raise StepError(step.id, step.operator, exc) from exc
    if not isinstance(result, spec.output):
        raise StepError(step.id, step.operator, TypeError(f"returned {type(result).__name__}, "
                                                          f"not {spec.output.__name__}"))
    if isinstance(result, EvidenceSet):  # a document routed far above the others leads (retrieval/routing.py)
        result = result.led_by(ctx.lead)
    usage = ledger.total()
    trace = TraceStep(step=step.id, operator=step.operator, seconds=round(time.perf_counter() - began, 4),
                      model_seconds=round(meter[0], 4), llm_calls=usage.calls, tokens=usage.total_tokens,
                      inputs=[f"{a}: {outputs[a].summary()}" for a in step.after], output=result.summary(),
                      details=result.details() if hasattr(result, "details") else [],
                      engine=getattr(result, "engine", None))
    return result, trace


async def execute(plan: Plan, ctx: RunContext, *, until: str | None = None) -> Run:
    """Run ``plan`` (only ``until`` and the steps it depends on, when given); see the module docstring."""
    check(plan)
    steps = _needed(plan, until)
    sorter = TopologicalSorter({sid: s.after for sid, s in steps.items()})
    sorter.prepare()
    outputs: dict[str, Value] = {}
    traces: dict[str, TraceStep] = {}
    while sorter.is_active():
        batch = set(sorter.get_ready())
        ready = [sid for sid in steps if sid in batch]  # in plan order
        tasks = [asyncio.ensure_future(_run_step(steps[sid], ctx, outputs)) for sid in ready]
        try:
            done = await asyncio.gather(*tasks)
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        for sid, (result, trace) in zip(ready, done, strict=True):
            outputs[sid], traces[sid] = result, trace
            sorter.done(sid)
    order = [s.id for s in plan.steps if s.id in outputs]
    return Run(outputs={sid: outputs[sid] for sid in order}, trace=[traces[sid] for sid in order])
