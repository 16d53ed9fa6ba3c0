"""G²-Reader's planning loop (paper §3.3): decompose, run the DAG children first, check the evidence, refine.

    result = await plan_and_read(question, read=reader, llm=llm, k=10, tau_max=3)
    result.keys, result.rounds, result.pairs   # evidence (at most k); each round's DAG, answers, verdicts; trajectory

``read(text)`` is the readout of one (sub-)question as evidence nodes. With an LLM: the decomposer (E.1), a worker per
node (E.3) that also sees its children's answers, the checker (E.5) and the refinement (E.2); a decomposer or refinement
reply that is not a valid DAG keeps the previous graph, and an unparsable checker reply is asked again (``tau_max``
times at most in all). Without an LLM: the comparison split, an extractive worker (the sentence holding most of the
node's terms) and the coverage checker, whose missing terms become new nodes, until nothing is missing or new to try, or
``tau_max`` refinements ran.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from ..errors import ModelError
from ..llm.chat import ChatModel
from ..llm.prompts import render_prompt
from ..retrieval.answering import numbered
from ..retrieval.g2.planning import (
    MAX_NODES,
    MAX_REFINED,
    CheckReply,
    DagReply,
    PlanningGraph,
    comparison_dag,
    coverage_gaps,
    gap_task,
    question_terms,
)
from ..retrieval.results import EvidenceNode

log = logging.getLogger(__name__)

Reader = Callable[[str], Awaitable[list[EvidenceNode]]]
CONTEXT_NODES = 6  # evidence pieces a prompt shows
_OUTPUT = re.compile(r"<output>\s*(.*?)\s*(?:</output>|$)", re.DOTALL | re.IGNORECASE)
_SENTENCES = re.compile(r"(?<=[.!?])\s+")


class NodeAnswer(BaseModel):
    id: str
    task: str
    answer: str
    units: int


class Verdict(BaseModel):
    sufficient: bool
    gaps: list[str] = Field(default_factory=list)
    by: str = "coverage"  # "llm" or "coverage"


class Round(BaseModel):
    """One execution of the planning graph and the checker's verdict on it."""

    number: int
    dag: str
    answers: list[NodeAnswer]
    verdict: Verdict | None = None
    notes: list[str] = Field(default_factory=list)  # checker failures, rejected DAGs


@dataclass
class PlanResult:
    keys: list[str]
    rounds: list[Round] = field(default_factory=list)
    pairs: list[tuple[str, str]] = field(default_factory=list)
    failures: int = 0  # unparsable checker replies (not rounds)


def _context(nodes: Sequence[EvidenceNode]) -> str:
    return numbered(list(nodes)[:CONTEXT_NODES]) or "(nothing retrieved)"


def _pairs(answers: Sequence[NodeAnswer]) -> str:
    return "\n".join(f"- Q: {a.task}\n  A: {a.answer}" for a in answers)


def output_text(text: str) -> str:
    """What a worker or reasoner reply holds in its <output> tags (the whole reply when it has none)."""
    match = _OUTPUT.search(text)
    return (match.group(1) if match else text).strip()


def extractive_answer(task: str, nodes: Sequence[EvidenceNode]) -> str:
    """The offline worker: the evidence sentence holding most of the task's terms (first wins a tie)."""
    terms = {t.lower() for t in question_terms(task)}
    best, score = "", -1
    for node in nodes:
        for sentence in _SENTENCES.split(" ".join(node.text.split())):
            hits = sum(t in sentence.lower() for t in terms)
            if hits > score:
                best, score = sentence, hits
    return best[:300]


def allot(question: Sequence[str], subs: Sequence[Sequence[str]], k: int) -> list[str]:
    """E* to the budget: the sub-questions' readouts bring, in turn, their best keys that the question's readout
    does not hold (at most half the budget), and the question's own readout fills the rest, first. A
    sub-question is there to fill a gap, so its evidence is added to the question's, not traded against it."""
    share = k // 2 if subs else 0
    kept: list[str] = []
    queues = [[key for key in keys if key not in question[:k - share]] for keys in subs]
    while len(kept) < share and any(queues):
        for queue in queues:
            while queue and queue[0] in kept:
                queue.pop(0)
            if queue and len(kept) < share:
                kept.append(queue.pop(0))
    own = [key for key in question if key not in kept][:k - len(kept)]
    return own + kept


class _Planner:
    def __init__(self, question: str, read: Reader, llm: ChatModel | None) -> None:
        self.question, self.read, self.llm = question, read, llm
        self.evidence: dict[str, list[EvidenceNode]] = {}

    async def readout(self, task: str) -> list[EvidenceNode]:
        if task not in self.evidence:
            self.evidence[task] = await self.read(task)
        return self.evidence[task]

    async def _dag(self, llm: ChatModel, prompt: str, max_nodes: int, notes: list[str],
                   **variables: str) -> PlanningGraph | None:
        try:
            reply = (await llm.complete(render_prompt(prompt, question=self.question, **variables), DagReply,
                                             stage=f"g2.{prompt}")).value
            return PlanningGraph.from_reply(reply, self.question, max_nodes=max_nodes)
        except (ModelError, ValueError) as exc:
            notes.append(f"{prompt}: {exc}; previous graph kept")
            log.warning("G2 %s reply rejected: %s", prompt, exc)
            return None

    async def decompose(self, notes: list[str]) -> PlanningGraph:
        if self.llm is None:
            return comparison_dag(self.question)
        context = _context(await self.readout(self.question))
        return (await self._dag(self.llm, "g2_decompose", MAX_NODES, notes, context=context)
                or PlanningGraph.single(self.question))

    async def execute(self, dag: PlanningGraph) -> list[NodeAnswer]:
        answers: dict[str, NodeAnswer] = {}
        for node_id in dag.order():
            node = dag.node(node_id)
            evidence = await self.readout(node.task)
            if self.llm is None:
                answer = extractive_answer(node.task, evidence)
            else:
                children = "\n".join(f"- {answers[c].task}: {answers[c].answer}" for c in node.children)
                context = _context(evidence) + (f"\n\nAnswers of its sub-tasks:\n{children}" if children else "")
                try:
                    reply = (await self.llm.complete(render_prompt("g2_worker", context=context, question=node.task),
                                                     stage="g2.worker")).value
                    answer = output_text(reply)
                except ModelError as exc:
                    answer = extractive_answer(node.task, evidence)
                    log.warning("G2 worker failed on %r (%s); extractive answer", node.task, exc)
            answers[node_id] = NodeAnswer(id=node_id, task=node.task, answer=answer, units=len(evidence))
        return list(answers.values())

    async def check(self, answers: Sequence[NodeAnswer], tried: Sequence[str]) -> Verdict | None:
        """The verdict; None when the LLM's reply could not be parsed (a failure, not a round)."""
        if self.llm is None:
            texts = [n.text for nodes in self.evidence.values() for n in nodes]
            missing = coverage_gaps(self.question, texts)
            return Verdict(sufficient=not missing, gaps=[t for t in missing if t not in tried][:3])
        try:
            reply = (await self.llm.complete(render_prompt("g2_checker", question=self.question,
                                                           evidences=_pairs(answers),
                                                           context=_context(await self.readout(self.question))),
                                             CheckReply, stage="g2.checker")).value
        except ModelError as exc:
            log.warning("G2 checker reply unparsable (%s): recorded, not counted as a round", exc)
            return None
        return Verdict(sufficient=reply.sufficient, gaps=reply.gaps[:3], by="llm")

    async def refine(self, dag: PlanningGraph, answers: Sequence[NodeAnswer], verdict: Verdict,
                     notes: list[str]) -> PlanningGraph | None:
        if self.llm is None:
            tasks = [gap_task(term, self.question) for term in verdict.gaps]
            refined = dag.with_gaps([t for t in tasks if t not in self.evidence])
            return refined if len(refined.nodes) > len(dag.nodes) else None
        return await self._dag(self.llm, "g2_refine", MAX_REFINED, notes,
                               context=_context(await self.readout(self.question)), old_dag=dag.model_dump_json(),
                               evidences=_pairs(answers), gaps="; ".join(verdict.gaps) or "none")


async def plan_and_read(question: str, *, read: Reader, llm: ChatModel | None, k: int, tau_max: int,
                        plan: bool = True) -> PlanResult:
    """Run the planning graph for ``question`` (``plan`` False: the question's readout alone); see the module
    docstring."""
    planner = _Planner(question, read, llm)
    probe = await planner.readout(question)
    if not plan:
        return PlanResult(keys=[n.key for n in probe][:k])
    result = PlanResult(keys=[])
    notes: list[str] = []
    dag = await planner.decompose(notes)
    refinements, tried = 0, list[str]()
    while True:
        answers = await planner.execute(dag)
        current = Round(number=len(result.rounds), dag=dag.describe(), answers=answers, notes=notes)
        result.rounds.append(current)
        verdict = await planner.check(answers, tried)
        while verdict is None and result.failures < tau_max:
            result.failures += 1
            current.notes.append("checker reply unparsable: recorded as a failure, not a round")
            verdict = await planner.check(answers, tried)
        if verdict is None:
            result.failures += 1
            current.notes.append("checker failed again: refinement stops")
            break
        current.verdict = verdict
        if verdict.sufficient or refinements >= tau_max:
            break
        tried += verdict.gaps
        notes = []
        refined = await planner.refine(dag, answers, verdict, notes)
        if refined is None:
            current.notes += notes or ["nothing new to plan for: refinement stops"]
            break
        dag, refinements = refined, refinements + 1
    result.pairs = [(a.task, a.answer) for a in answers if a.id != "root"]
    subs = [[n.key for n in planner.evidence[a.task]] for a in answers if a.id != "root"]
    result.keys = allot([n.key for n in probe], subs, k)
    return result
