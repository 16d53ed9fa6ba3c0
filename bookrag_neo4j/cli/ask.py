"""The question commands: ``bookrag ask`` (an answer with citations), ``bookrag retrieve`` (the ranked
evidence, no synthesis) and ``bookrag methods`` (what ``--method`` chooses from).

    bookrag retrieve "What does lm fit?" --doc R-intro.pdf --method layout --explain
    bookrag retrieve "What does lm fit?" --doc R-intro.pdf --json | jq .plan > plan.json   # edit a step, then
    bookrag retrieve "What does lm fit?" --doc R-intro.pdf --plan plan.json

Over several documents every evidence row names its document, and ``ask`` lists its sources under a heading per
document (so does its ``--json``, in ``by_document``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal, cast

import typer
from rich.markup import escape

from ..errors import PlanError, validation_line
from . import lean_imports
from .common import DocOpt, InstanceOpt, JsonOpt, MethodOpt, console, library, print_json, render

if TYPE_CHECKING:
    from ..retrieval.plan import Plan, TraceStep
    from ..retrieval.results import Answer, Evidence, EvidenceNode

CategoryOpt = Annotated[Literal["single-hop", "multi-hop", "global"] | None, typer.Option(
    help="Skip the classification: plan the question as this category.")]
PlanOpt = Annotated[Path | None, typer.Option(
    "--plan", help="Run this saved plan (JSON, as --json prints it under \"plan\") instead of planning.")]
ExplainOpt = Annotated[bool, typer.Option("--explain", help="Show the plan that ran and the per-step trace.")]
EVIDENCE_WIDTHS = {"document": 40, "section": 60, "excerpt": 60}  # on a terminal, cut at the end; piped, whole


def _load_plan(path: Path | None) -> Plan | None:
    if path is None:
        return None
    from pydantic import ValidationError

    from ..retrieval.plan import Plan

    try:
        return Plan.model_validate_json(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PlanError(f"{path}: cannot read the plan: {exc.strerror or exc}") from None
    except ValidationError as exc:
        raise PlanError(f"{path}: not a plan: {validation_line(exc, whole='plan')}") from None


def _evidence_rows(nodes: list[EvidenceNode]) -> list[dict]:
    return [{"rank": n.rank, "key": n.key, "kind": n.kind, "document": n.document, "pages": n.pages,
             "section_path": n.section_path, "graph_score": round(n.graph_score, 6),
             "text_score": round(n.text_score, 6), "text": n.text[:300]} for n in nodes]


def _explain(plan: Plan | None, trace: list[TraceStep]) -> None:
    if plan is not None:
        console.print(plan.explain(), markup=False, highlight=False)
    for step in trace:
        cost = f", {step.llm_calls} LLM calls, {step.tokens} tokens" if step.llm_calls else ""
        model = f" (model {step.model_seconds * 1000:.0f} ms)" if step.model_seconds else ""
        console.print(f"  [dim]{step.step or step.operator} {step.operator}: {step.seconds * 1000:.0f} ms{model}"
                      f"{cost} -> {step.output}[/]", highlight=False)
        for line in step.details:
            console.print(f"    {line}", markup=False, highlight=False)


def _show_answer(answer: Answer) -> None:
    """The answer, then its sources numbered in its order: under a heading per document when they come from
    several."""
    print(answer.text)
    if not answer.citations:
        return
    print("\nSources:")
    groups = answer.by_document()
    if len(groups) == 1:
        for i, c in enumerate(answer.citations, 1):
            print(f"  [{i}] {c.label}")
        return
    names = Counter(group.document for group in groups)
    for group in groups:  # two files of one name (from other folders): told apart by their keys
        print(f"  {group.document}" + (f" ({group.doc_key[:16]})" if names[group.document] > 1 else ""))
        for i in group.numbers:
            print(f"    [{i}] {answer.citations[i - 1].short_label or '(the whole document)'}")


def _answer_json(answer: Answer) -> dict:
    return {**answer.model_dump(mode="json"), "by_document": [g.model_dump() for g in answer.by_document()]}


def _show_evidence(evidence: Evidence, as_json: bool) -> None:
    if evidence.count is not None and not as_json:
        names = {n.doc_key: n.document for n in evidence.evidence}
        parts = [f"{names.get(key, key[:16])} {n}" for key, n in evidence.count_by_document.items()]
        console.print(f"count: {evidence.count}" + (f" ({', '.join(parts)})" if len(parts) > 1 else ""),
                      markup=False, highlight=False)
    rows = _evidence_rows(evidence.evidence)
    data = {"question": evidence.question, "count": evidence.count, "count_by_document": evidence.count_by_document,
            "evidence": rows,
            "seeds": evidence.seeds, "warnings": evidence.warnings, "groups": [g.model_dump() for g in evidence.groups],
            "plan": evidence.plan.model_dump() if evidence.plan else None,
            "trace": [t.model_dump() for t in evidence.trace]}
    render(data, ["#", "document", "kind", "pages", "section", "graph", "text", "excerpt"],
           ((r["rank"], escape(r["document"]), r["kind"], f"{r['pages'][0]}–{r['pages'][-1]}" if len(r["pages"]) > 1
             else "".join(map(str, r["pages"])), escape(r["section_path"]), f"{r['graph_score']:.4f}",
             f"{r['text_score']:.3f}", escape(r["text"][:60].replace("\n", " "))) for r in rows), as_json,
           widths=EVIDENCE_WIDTHS)


def _question_command(answer: bool) -> Callable[..., None]:
    """``ask`` (``answer``) or ``retrieve``: the same options, the same SDK call but for synthesis."""

    def command(
        question: Annotated[str, typer.Argument(help="The question.")],
        doc: DocOpt = None,
        method: MethodOpt = "bookrag",
        plan: PlanOpt = None,
        explain: ExplainOpt = False,
        no_llm: Annotated[bool, typer.Option("--no-llm", help="LLM-free: plan and select without an LLM; "
                                                               "ask answers with the ranked evidence.")] = False,
        category: CategoryOpt = None,
        top_k: Annotated[int | None, typer.Option(
            min=1, help="At most this many evidence items, best first (default: all the method returns).")] = None,
        instance: InstanceOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        lean_imports.install(pandas_for_neo4j=False)  # before the driver's import: a question sends no DataFrame
        rag = library(instance, use_llm=not no_llm)
        run = rag.ask if answer else rag.retrieve
        result = run(question, doc=doc, method=method, top_k=top_k, category=category, plan=_load_plan(plan))
        for warning in result.warnings:
            console.print(f"[yellow]warning:[/] {escape(warning)}", soft_wrap=True, highlight=False)
        if explain and not as_json:
            _explain(result.plan, result.trace)
        if not answer:
            _show_evidence(cast("Evidence", result), as_json)
        elif as_json:
            print_json(_answer_json(cast("Answer", result)))
        else:
            _show_answer(cast("Answer", result))

    command.__doc__ = ("Answer a question about indexed documents, citing document, section path and pages."
                       if answer else
                       "The ranked evidence for a question (no answer synthesis): node, type, pages, section "
                       "path, scores.")
    return command


ask = _question_command(answer=True)
retrieve = _question_command(answer=False)


def methods(as_json: JsonOpt = False) -> None:
    """The methods --method chooses from: the three to use (bookrag the default), then the baselines and the
    ablations, which are for evaluation."""
    from ..sdk import BookRAG

    order = {"method": 0, "baseline": 1, "ablation": 2}
    found = sorted(BookRAG.methods(), key=lambda m: order[m.role])
    shown = {"method": "[green]use[/]", "baseline": "baseline", "ablation": "ablation"}
    render([{"name": m.name, "role": m.role, "description": m.description} for m in found],
           ["method", "role", "description"],
           ((m.name + (" (default)" if m.name == "bookrag" else ""), shown[m.role], m.description) for m in found),
           as_json)


def cypher(
    question: Annotated[str, typer.Argument(help="The question.")],
    doc: DocOpt = None,
    explain: ExplainOpt = False,
    no_llm: Annotated[bool, typer.Option("--no-llm", help="The offline intent templates only.")] = False,
    instance: InstanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """text2Cypher: the read-only Cypher query written for a question (the LLM, else an intent template) and
    its rows, run through the read-only gate."""
    from dataclasses import asdict

    lean_imports.install(pandas_for_neo4j=False)
    run = library(instance, use_llm=not no_llm).cypher(question, doc=doc)
    if as_json:
        print_json(asdict(run))
        return
    if explain or not run.rows:
        console.print(f"[dim]query ({run.source}):[/]", highlight=False)
        console.print(run.query or "(none: no template fits and no LLM wrote one)", markup=False, highlight=False)
        if run.parameters:
            console.print(f"[dim]parameters:[/] {run.parameters}", highlight=False)
    if run.error:
        console.print(f"[red]refused:[/] {run.error}", highlight=False)
    elif run.query:
        columns = list(run.rows[0]) if run.rows else ["key"]
        render(run.rows, columns, ([escape(str(r.get(c))) for c in columns] for r in run.rows), as_json=False,
               widths=dict.fromkeys(columns, 60))


COMMANDS = {"ask": ask, "retrieve": retrieve, "methods": methods, "cypher": cypher}
