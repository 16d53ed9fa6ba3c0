"""Run a method (or a saved plan) over a scope of documents: retrieval, or retrieval and the answer.

    retriever = Retriever(db, settings, models, layers=OnDemandLayers(db, settings))  # builds what a method reads
    plan = await retriever.plan("What were net sales in 2017?", method="bookrag")
    evidence = await retriever.retrieve(plan.question, doc_keys, plan=plan)   # an edited plan runs the same
    answer = await retriever.ask("What were net sales in 2017?", doc_keys, method="bm25")
    answer = await retriever.ask("And in 2018?", history=[Turn(question=..., answer=..., documents=[...])])

Nothing outlives a call: each run's trace and results come back in the returned model.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import replace

from ..config import Settings
from ..db.client import Neo4jClient
from ..domains import glossary_of
from ..errors import DocumentNotFoundError, PlanError, QuestionError
from ..library.documents import Document
from ..llm.factory import Models
from ..llm.usage import track_usage
from ..ops.executor import Run, execute
from ..ops.operator_registry import RunContext
from ..ops.superrag import CypherRun, question_cypher
from ..ops.values import Draft, Entities, EvidenceSet
from ..retrieval import subtrees
from ..retrieval.conversation import carried_documents, standalone
from ..retrieval.document_cache import keep_documents
from ..retrieval.plan import Plan, TraceStep
from ..retrieval.planner import Planner
from ..retrieval.planner_replies import QueryCategory
from ..retrieval.results import Answer, Evidence, Turn
from ..retrieval.routing import ROUTE, Routing, named_documents, route
from .method_registry import METHODS, LayerBuilder, get_method

log = logging.getLogger(__name__)


def checked_question(question: str, limit: int) -> str:
    """``question`` without surrounding spaces, or :class:`~bookrag_neo4j.errors.QuestionError` when it is empty
    or longer than ``limit`` characters (``settings.retrieval.max_question_chars``): refused before any work."""
    text = question.strip() if isinstance(question, str) else ""
    if not text:
        raise QuestionError('the question is empty: ask something, e.g. bookrag ask "What were net sales?"')
    if len(text) > limit:
        raise QuestionError(f"the question has {len(text):,} characters; the limit is {limit:,} "
                            "(BOOKRAG_MAX_QUESTION_CHARS)")
    return text


SCOPE = "Scope"  # the trace step that reports documents in scope whose layers are incomplete


def scope_warnings(documents: Sequence[Document]) -> list[TraceStep]:
    """A ``Scope`` trace step naming each document whose build is partial (a killed run, or one still going),
    or no step when every layer is complete; also logged as a warning."""
    details = [f"{d.name}: the {' and '.join(d.partial)} build is incomplete; results may miss evidence until "
               "`bookrag index` runs on it again" for d in documents if d.partial]
    for line in details:
        log.warning("%s", line)
    return [TraceStep(step="scope", operator=SCOPE, output=f"{len(details)} of {len(documents)} documents partial",
                      details=details)] if details else []


def vanished_warnings(documents: Sequence[Document], kept: set[str]) -> list[TraceStep]:
    """A ``Scope`` trace step naming each document in scope whose key is not in ``kept`` once the run ends
    (deleted while the question ran: its evidence may be missing), or no step; also logged as a warning."""
    details = [f"{d.name} was deleted while the question ran; its evidence is missing" for d in documents
               if d.key not in kept]
    for line in details:
        log.warning("%s", line)
    return [TraceStep(step="scope", operator=SCOPE, output=f"{len(details)} of {len(documents)} documents deleted",
                      details=details)] if details else []


class Retriever:
    """Plans with a method and runs the plan over the documents of one Neo4j database."""

    def __init__(self, db: Neo4jClient, settings: Settings, models: Models, *, use_llm: bool = True,
                 layers: LayerBuilder | None = None) -> None:
        """``layers``: what builds a layer a method reads that a document lacks (the SDK hands in the build
        wing's); without it such a document is an error that says how to build the layer."""
        self.db = db
        self.layers = layers
        self.settings = settings
        self.models = models
        self.llm = models.llm if use_llm else None
        keep_documents(settings.retrieval.cache_documents)  # the process's per-document caches

    async def plan(self, question: str, *, method: str = "bookrag", category: QueryCategory | None = None) -> Plan:
        """The method's plan for ``question`` (what :meth:`retrieve` and :meth:`ask` run)."""
        checked = checked_question(question, self.settings.retrieval.max_question_chars)
        return (await self._plan(checked, method, category, None))[0]

    def planner(self, documents: Sequence[Document] | None) -> Planner:
        """The planner of a question over ``documents``: with the glossary of the domain packs that apply to them
        by their cards' kinds (``None``: not known yet, every pack)."""
        return Planner(self.llm, glossary_of(self.settings.retrieval, documents))

    async def _plan(self, question: str, method: str, category: QueryCategory | None,
                    documents: Sequence[Document] | None) -> tuple[Plan, TraceStep]:
        chosen = get_method(method)
        began = time.perf_counter()
        with track_usage() as ledger:
            plan = await chosen.plan(question, self.planner(documents), category)
        seconds, usage = time.perf_counter() - began, ledger.total()
        trace = TraceStep(step="plan", operator="Plan", seconds=round(seconds, 4),
                          model_seconds=round(seconds, 4) if usage.calls else 0.0, llm_calls=usage.calls,
                          tokens=usage.total_tokens, output=f"{plan.category} ({plan.classified_by})")
        return plan, trace

    async def retrieve(self, question: str, doc_keys: Sequence[str] | None = None, *, method: str = "bookrag",
                       category: QueryCategory | None = None, plan: Plan | None = None,
                       history: Sequence[Turn] = ()) -> Evidence:
        """Ranked evidence (no synthesis), with the plan and the trace. ``plan`` runs a given plan instead;
        ``history``: the conversation's earlier turns, when ``question`` is a follow-up."""
        plan, run = await self._run(question, doc_keys, method, category, plan, answer=False, history=history)
        return self._evidence(plan, run)

    async def ask(self, question: str, doc_keys: Sequence[str] | None = None, *, method: str = "bookrag",
                  category: QueryCategory | None = None, plan: Plan | None = None,
                  history: Sequence[Turn] = ()) -> Answer:
        """The answer with the citations of the evidence it used (extractive without an LLM); a follow-up (with
        ``history``) keeps the question as asked and says how it was read (``asked_as``)."""
        asked = checked_question(question if plan is None else plan.question, self.settings.retrieval.max_question_chars)
        plan, run = await self._run(question, doc_keys, method, category, plan, answer=True, history=history)
        evidence = self._evidence(plan, run)
        if plan.answer is None:
            raise PlanError("the plan has no answer step: it retrieves only")
        draft = run.outputs[plan.answer]
        if not isinstance(draft, Draft):
            raise PlanError(f"the plan's answer step {plan.answer!r} gives {type(draft).__name__}, not a Draft")
        return Answer(question=asked, asked_as=plan.question if plan.question != asked else None, text=draft.text,
                      citations=[n.citation for n in draft.used], evidence=evidence.evidence, plan=plan,
                      trace=run.trace, extractive=draft.extractive, count=evidence.count, groups=evidence.groups,
                      seeds=evidence.seeds, warnings=evidence.warnings)

    async def _run(self, question: str, doc_keys: Sequence[str] | None, method: str,
                   category: QueryCategory | None, plan: Plan | None, *, answer: bool, history: Sequence[Turn] = ()
                   ) -> tuple[Plan, Run]:
        """The plan (made by the method unless given; a follow-up's from the question it stands for) and its run;
        the planning step opens the trace (after a ``Scope`` step when a document in scope is partial)."""
        question = checked_question(question if plan is None else plan.question, self.settings.retrieval.max_question_chars)
        documents = await subtrees.scope_documents(self.db, doc_keys)
        if not documents:
            raise DocumentNotFoundError("no indexed document to ask: see `bookrag docs list`")
        planned = scope_warnings(documents)
        if plan is None:
            question = await standalone(self.llm, history, question)
            plan, step = await self._plan(question, method, category, documents)
            planned.append(step)
        carried = carried_documents(history) if doc_keys is None else []
        routing = await self._route(plan, question, documents, carried)
        documents, planned = routing.documents, planned + routing.steps
        models = self.models if self.llm is not None else replace(self.models, llm=None)  # the LLM-free mode's
        for doc in documents:  # a layer the method reads that the document lacks is built now (a no-op after)
            if plan.method in METHODS:
                await METHODS[plan.method].prepare(self.layers, models, doc, self.settings)
        if answer and not plan.answer:
            raise PlanError("the plan has no answer step (Reduce): it can only retrieve")
        ctx = RunContext(self.db, self.settings, self.models, self.llm, documents, lead=routing.lead)
        run = await execute(plan, ctx, until=None if answer else plan.output)
        kept = set(await self.db.read_rows("library/present_keys", doc_keys=[d.key for d in documents]))
        return plan, replace(run, trace=planned + run.trace + vanished_warnings(documents, kept))

    async def _route(self, plan: Plan, question: str, documents: list[Document], carried: Sequence[str] = ()
                     ) -> Routing:
        """The documents the question reads: those it names by their cards (a count too), else a follow-up's
        conversation's (``carried``), else, when more than ``BOOKRAG_ROUTE_DOCUMENTS`` and not a count (which
        reads them all), the best routed."""
        routing = named_documents(plan.question, documents) if len(documents) > 1 else Routing(documents)
        if not routing.steps and len(documents) > 1 and (kept := conversation_documents(documents, carried)):
            return kept
        if plan.category == "global" or len(routing.documents) <= self.settings.retrieval.route_documents:
            return routing
        began = time.perf_counter()
        (vector,) = await self.models.embedder.embed([question])
        routed = await route(self.db, routing.documents, question, vector,
                             keep=self.settings.retrieval.route_documents, seconds=time.perf_counter() - began)
        return replace(routed, steps=routing.steps + routed.steps)

    async def cypher(self, question: str, doc_keys: Sequence[str] | None = None) -> CypherRun:
        """text2Cypher alone: the query written for the question (the LLM, else a template) and its rows,
        through the read-only gate (``bookrag cypher``)."""
        question = checked_question(question, self.settings.retrieval.max_question_chars)
        documents = await subtrees.scope_documents(self.db, doc_keys)
        if not documents:
            raise DocumentNotFoundError("no indexed document to ask: see `bookrag docs list`")
        return await question_cypher(RunContext(self.db, self.settings, self.models, self.llm, documents), question)

    @staticmethod
    def _evidence(plan: Plan, run: Run) -> Evidence:
        found = run.outputs.get(plan.output)
        if not isinstance(found, EvidenceSet):
            raise PlanError(f"the plan's output step {plan.output!r} gives {type(found).__name__}, "
                            "not an EvidenceSet")
        nodes = [n.model_copy(update={"rank": rank}) for rank, n in enumerate(found.nodes, 1)]
        seeds = list(dict.fromkeys(s for e in run.of_type(Entities) for s in e.seeds))
        warnings = [line for step in run.trace if step.operator == SCOPE for line in step.details]
        return Evidence(question=plan.question, evidence=nodes, plan=plan, trace=run.trace, count=found.count,
                        counted=found.counted, count_by_document=found.count_by_document, groups=found.groups,
                        seeds=seeds, warnings=warnings)


def conversation_documents(documents: Sequence[Document], carried: Sequence[str]) -> Routing | None:
    """A follow-up that names no document reads the documents the conversation's last answer cited (those still
    indexed), with a ``Route`` step saying so; None when there are none."""
    wanted = set(carried)
    kept = [d for d in documents if d.key in wanted]
    if not kept:
        return None
    step = TraceStep(step="route", operator=ROUTE, output=f"{len(kept)} of {len(documents)} documents, by the "
                     "conversation", details=[f"{d.name}: cited by the conversation's last answer" for d in kept])
    return Routing(kept, [step])
