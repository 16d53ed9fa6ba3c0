"""The retrieval agent: runs the planner's plan with the operators, and keeps a trace per operator.

    agent = RetrievalAgent(graph, settings, models)            # models.llm None: the LLM-free mode
    evidence = await agent.retrieve("What were net sales in 2017?", doc_keys=["..."])
    answer = await agent.ask("What were net sales in 2017?", doc_keys=["..."])
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..config import Settings
from ..errors import DocumentNotFoundError, ModelError
from ..graph.client import GraphClient
from ..kg.llm_extract import clean_extraction
from ..kg.names import normalise
from ..kg.offline_extract import SpacyExtractor
from ..kg.types import Extraction
from ..llm.factory import Models
from ..llm.prompts import render_prompt
from ..llm.usage import track_usage
from . import selectors
from .evidence import Answer, Evidence, EvidenceNode, Plan, TraceStep
from .planner import make_plan
from .reasoners import MAX_TEXT_CHARS, graph_reasoning, text_reasoning
from .replies import QueryCategory, SectionChoice
from .skyline import skyline
from .synthesis import extractive_answer, map_answers, reduce_answer

log = logging.getLogger(__name__)

TOC_LIMIT = 400  # sections shown to the LLM for Select_by_Section
TOC_CHARS = 12_000  # and at most this much of their listing (~3 k tokens: small local models have 8 k)
MODEL = "model_seconds"
# The paper's ablations (Table 7), for `bookrag eval`: one static single-hop workflow; every content block of
# the scope as candidates; no Graph_Reasoning; no Text_Reasoning. Without one reasoner, the best
# `skyline_min` nodes by the other are kept (the Skyline needs both). ER ablation: index with `--er basic`.
ABLATIONS = ("no-plan", "no-selector", "no-graph", "no-text")


class RetrievalAgent:
    """Plans and runs retrieval over the documents of one Neo4j database."""

    def __init__(self, graph: GraphClient, settings: Settings, models: Models, *, use_llm: bool = True,
                 extractor: SpacyExtractor | None = None, ablations: Sequence[str] = ()) -> None:
        unknown = set(ablations) - set(ABLATIONS)
        if unknown:
            raise ValueError(f"unknown ablations {sorted(unknown)}; known: {', '.join(ABLATIONS)}")
        self.ablations = frozenset(ablations)
        self.graph = graph
        self.settings = settings
        self.models = models
        self.llm = models.llm if use_llm else None
        self._spacy = extractor
        self.trace: list[TraceStep] = []

    # --- public ---
    async def retrieve(self, question: str, doc_keys: Sequence[str] | None = None, *,
                       category: QueryCategory | None = None) -> Evidence:
        """Plan and retrieve: ranked evidence nodes with the plan and the trace. ``category`` skips the
        classification (the rest of the plan is made as usual)."""
        self.trace = []
        documents = await self._documents(doc_keys)
        scope = [d["key"] for d in documents]
        with self._step("Plan") as detail:
            if "no-plan" in self.ablations:
                category = "single-hop"
            plan = await make_plan(question, self.llm, category=category)
            detail["category"] = plan.category
            if self.llm is not None:
                detail[MODEL] = detail["seconds"]()
        count = None
        groups: dict[str, list[str]] = {}
        if plan.category == "global":
            nodes, count = await self._global(plan, scope)
        elif plan.sub_questions:
            nodes = []
            for sub in (s["question"] for s in plan.sub_questions if s["type"] == "retrieval"):
                found = await self._single_hop(sub, documents)
                groups[sub] = [n.key for n in found]
                seen = {n.key for n in nodes}
                nodes += [n for n in found if n.key not in seen]
        else:
            nodes = await self._single_hop(question, documents)
        for rank, node in enumerate(nodes, 1):
            node.rank = rank
        return Evidence(question=question, nodes=nodes, plan=plan, trace=self.trace, count=count, groups=groups)

    async def ask(self, question: str, doc_keys: Sequence[str] | None = None, *,
                  category: QueryCategory | None = None) -> Answer:
        """Retrieve, then synthesise an answer that cites its evidence (extractive without an LLM)."""
        evidence = await self.retrieve(question, doc_keys, category=category)
        plan = evidence.plan
        if self.llm is None or evidence.count is not None:  # COUNT is answered from the filtered nodes
            text = extractive_answer(evidence.nodes, count=evidence.count)
            cited = evidence.nodes if evidence.count is not None else evidence.nodes[:3]
            return Answer(question=question, text=text, citations=[n.citation for n in cited], evidence=evidence.nodes,
                          plan=plan, trace=self.trace, extractive=True)
        with self._step("Reduce") as detail:
            try:
                partials = []
                if evidence.groups:  # multi-hop: Map = one partial answer per sub-question, over its evidence
                    number = {n.key: i for i, n in enumerate(evidence.nodes)}
                    partials = await map_answers(
                        self.llm, list(evidence.groups),
                        [[evidence.nodes[number[k]] for k in keys] for keys in evidence.groups.values()],
                        [[number[k] for k in keys] for keys in evidence.groups.values()])
                reply = await reduce_answer(self.llm, question, evidence.nodes, partials=partials,
                                            operation=plan.operation if plan else None)
                text, used = reply.answer, [evidence.nodes[i - 1] for i in reply.sources]
            except ModelError as exc:
                log.warning("answer synthesis failed (%s); answering extractively", exc)
                text, used = extractive_answer(evidence.nodes, count=evidence.count), evidence.nodes[:3]
            detail["sources"] = len(used)
            detail[MODEL] = detail["seconds"]()
        return Answer(question=question, text=text, citations=[n.citation for n in used], evidence=evidence.nodes,
                      plan=plan, trace=self.trace)

    # --- plans ---
    async def _single_hop(self, question: str, documents: list[dict[str, Any]]) -> list[EvidenceNode]:
        s = self.settings
        scope = [d["key"] for d in documents]
        with self._step("Embed") as detail:
            (vector,) = await self.models.embedder.embed([question])
            detail[MODEL] = detail["seconds"]()
        with self._step("Extract") as detail:
            seeds, names, model_seconds = await self.extract_entities(question, scope)
            detail.update(entities=names, linked=len(seeds), seeds=seeds)
            detail[MODEL] = model_seconds

        async def select_by_entity() -> list[str]:
            with self._step("Select_by_Entity") as detail:
                keys = await selectors.select_by_entity(self.graph, seeds, depth=s.section_depth,
                                                        budget=s.selection_budget)
                detail["nodes"] = len(keys)
            return keys

        async def select_by_section() -> list[str]:
            with self._step("Select_by_Section") as detail:
                keys, detail[MODEL] = await self._select_sections(question, scope, vector)
                detail["nodes"] = len(keys)
            return keys

        if "no-selector" in self.ablations:
            keys = await selectors.filter_nodes(self.graph, scope)
        else:  # the two selectors are independent: their queries run side by side
            by_entity, by_section = await asyncio.gather(select_by_entity(), select_by_section())
            keys = list(dict.fromkeys([*by_entity, *by_section]))
        with self._step("Fetch") as detail:
            rows = await selectors.candidates(self.graph, keys, vector, max_chars=MAX_TEXT_CHARS)
            detail["nodes"] = len(rows)
        with self._step("Reasoning") as detail:
            holding = {r["doc_key"] for r in rows}  # only these documents' graphs are needed
            graph_scores, text_scores = await asyncio.gather(
                self._timed("Graph_Reasoning", graph_reasoning(
                    self.graph, [r["key"] for r in rows], seeds, damping=s.ppr_damping, engine=s.ppr_engine,
                    documents=[d for d in documents if d["key"] in holding])),
                self._timed("Text_Reasoning", text_reasoning(question, rows, self.models.reranker),
                            model=not self.models.reranker.reads_similarities),
            )
            detail["candidates"] = len(rows)
        with self._step("Skyline_Ranker") as detail:
            kept = self._rank([r["key"] for r in rows], graph_scores, text_scores)
            detail["kept"] = len(kept)
        with self._step("Fetch_Evidence"):
            by_key = {r["key"]: r for r in await selectors.fetch_nodes(self.graph, kept)}
        return [_evidence(by_key[k], graph_scores.get(k, 0.0), text_scores.get(k, 0.0)) for k in kept]

    def _rank(self, keys: list[str], graph_scores: dict[str, float], text_scores: dict[str, float]) -> list[str]:
        s = self.settings
        if self.ablations & {"no-graph", "no-text"}:  # one reasoner: its best skyline_min nodes
            scores = text_scores if "no-graph" in self.ablations else graph_scores
            return sorted(keys, key=lambda k: -scores.get(k, 0.0))[:s.skyline_min]
        return skyline([(k, graph_scores.get(k, 0.0), text_scores.get(k, 0.0)) for k in keys],
                       minimum=s.skyline_min, maximum=s.skyline_max)

    async def _global(self, plan: Plan, scope: list[str]) -> tuple[list[EvidenceNode], int | None]:
        within: list[str] | None = None
        kinds: list[str] | None = None
        page_from = page_to = None
        top_sections = False
        for step in plan.steps:
            if step.operator not in ("Filter_Range", "Filter_Modal"):
                continue
            with self._step(step.operator) as detail:
                kind, value = step.params["type"], step.params.get("value")
                if kind == "page" and value:
                    bounds = [int(x) for x in str(value).replace("–", "-").split("-") if x.strip().isdigit()]
                    if bounds:
                        page_from, page_to = min(bounds), max(bounds)
                elif kind == "section" and value:
                    toc = await selectors.sections(self.graph, scope)
                    roots = selectors.match_section_title(toc, value)
                    subtree = await selectors.select_by_section(self.graph, roots)
                    within = subtree if within is None else [k for k in within if k in set(subtree)]
                elif kind == "section":
                    top_sections = True
                else:
                    kinds = [*(kinds or []), kind]
                detail.update(type=kind, value=value)
        if top_sections and kinds is None:
            toc = await selectors.sections(self.graph, scope)
            keys = [t["key"] for t in toc if t["level"] == 1 and (within is None or t["key"] in within)
                    and (page_from is None or (t["page_start"] or 0) >= page_from)
                    and (page_to is None or (t["page_start"] or 0) <= page_to)]
        else:
            keys = await selectors.filter_nodes(self.graph, scope, kinds=kinds, page_from=page_from, page_to=page_to,
                                                within=within)
        if plan.operation == "COUNT":
            with self._step("Count") as detail:
                detail["count"] = len(keys)
        rows = await selectors.fetch_nodes(self.graph, keys[:self.settings.global_max_nodes])
        return [_evidence(r) for r in rows], len(keys) if plan.operation == "COUNT" else None

    # --- operators ---
    async def extract_entities(self, question: str, scope: list[str]) -> tuple[list[str], list[str], float]:
        """Question entities (LLM, else spaCy) linked to graph entities of the scope; and the seconds spent in
        models."""
        began = time.perf_counter()
        extraction = Extraction()
        if self.llm is not None:
            prompt = render_prompt("question_entities", question=question,
                                   entity_types=", ".join(self.settings.entity_types))
            try:
                extraction = (await self.llm.complete(prompt, Extraction, stage="query.extract")).value
            except ModelError as exc:
                log.warning("question entity extraction failed (%s); using spaCy", exc)
        if not extraction.entities:
            self._spacy = self._spacy or SpacyExtractor()
            (extraction,) = await self._spacy.extract([question])
        extraction = clean_extraction(extraction, self.settings.entity_types)
        names = [e.name for e in extraction.entities]
        if not names:
            return [], [], time.perf_counter() - began
        vectors = await self.models.embedder.embed(names)
        model_seconds = time.perf_counter() - began
        rows = await self.graph.read(
            "retrieval/link_entities", rows=[{"i": i, "name": normalise(n), "embedding": v}
                                             for i, (n, v) in enumerate(zip(names, vectors, strict=True))],
            doc_keys=scope, k=50, threshold=(1 + self.settings.link_threshold) / 2,
            per_entity=self.settings.link_per_entity)
        seeds = list(dict.fromkeys(link["key"] for row in rows for link in row["linked"]))
        return seeds, names, model_seconds

    async def _select_sections(self, question: str, scope: list[str],
                               vector: Sequence[float]) -> tuple[list[str], float]:
        """Select_by_Section: the LLM picks from the table of contents; offline, the sections around the
        blocks nearest to the question (tree-node vector index). Also returns the seconds spent in the LLM."""
        s = self.settings
        if self.llm is not None:
            toc = (await selectors.sections(self.graph, scope))[:TOC_LIMIT]
            if toc:
                lines = [f"{i}: {t['path']} (p. {t['page_start']})" for i, t in enumerate(toc)]
                while len(lines) > 1 and sum(len(line) + 1 for line in lines) > TOC_CHARS:
                    lines.pop()
                listing = "\n".join(lines)
                prompt = render_prompt("select_sections", question=question, toc=listing, max_sections=s.max_sections)
                began = time.perf_counter()
                try:
                    choice: SectionChoice = (await self.llm.complete(prompt, SectionChoice, stage="query.select")).value
                    picked = [toc[i]["key"] for i in choice.section_ids[:s.max_sections] if 0 <= i < len(toc)]
                    model_seconds = time.perf_counter() - began
                    return await selectors.select_by_section(self.graph, picked), model_seconds
                except ModelError as exc:
                    log.warning("section selection failed (%s); using the nearest blocks", exc)
        nearest = await selectors.nearest_nodes(self.graph, scope, vector, top=s.max_sections)
        return await selectors.subtrees_around(self.graph, nearest, depth=s.section_depth), 0.0

    async def _documents(self, doc_keys: Sequence[str] | None) -> list[dict[str, Any]]:
        docs = await selectors.scope_documents(self.graph, doc_keys)
        if not docs:
            raise DocumentNotFoundError("no indexed document to ask: see `bookrag docs list`")
        return docs

    # --- trace ---
    @contextmanager
    def _step(self, operator: str) -> Iterator[dict[str, Any]]:
        """Trace one operator: ``detail`` is shown in the trace; ``detail[MODEL]`` = seconds of model inference;
        ``detail["seconds"]()`` = seconds so far."""
        began = time.perf_counter()
        detail: dict[str, Any] = {"seconds": lambda: time.perf_counter() - began}
        with track_usage() as ledger:
            yield detail
        total = ledger.total()
        detail.pop("seconds")
        model_seconds = detail.pop(MODEL, 0.0)
        self.trace.append(TraceStep(operator=operator, seconds=round(time.perf_counter() - began, 4),
                                    model_seconds=round(model_seconds, 4), llm_calls=total.calls,
                                    tokens=total.total_tokens, detail=detail))

    async def _timed(self, operator: str, work: Any, *, model: bool = False) -> Any:
        began = time.perf_counter()
        result = await work
        seconds = round(time.perf_counter() - began, 4)
        self.trace.append(TraceStep(operator=operator, seconds=seconds, model_seconds=seconds if model else 0.0,
                                    detail={"scored": len(result)}))
        return result


def _evidence(row: dict[str, Any], graph_score: float = 0.0, text_score: float = 0.0) -> EvidenceNode:
    return EvidenceNode(
        key=row["key"], doc_key=row["doc_key"], document=row["document"], kind=row["kind"], title=row["title"] or "",
        text=row["text"] or "", page_start=row["page_start"] or 0, page_end=row["page_end"] or 0,
        section_path=row["section_path"] or "", bbox=row["bbox"], order=row["order"] or 0,
        graph_score=graph_score, text_score=text_score,
    )
