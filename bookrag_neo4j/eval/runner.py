"""``bookrag eval``: run registry methods (BookRAG, its ablations, the baselines) over a benchmark and score them.

    bench = load_benchmark(Path("benchmarks/my-benchmark"), limit=10)
    rows = await evaluate(db, settings, models, bench, methods=["bookrag", "bm25"], mode="retrieval")
    rows[0].recall_at_5p, rows[0].retrieved[0].pages
    summary = summarise(rows)            # eval.summary; then report.write_report(out, rows, summary)

Missing documents are indexed first. Per question and method: the retrieved units with their pages, page recall (all,
top 5, top 10 units), recall within the first 5 pages shown (a budget fair to units of any size), seconds, LLM calls and
tokens. ``scope="library"`` asks every question of the whole indexed library, no document named, as most users ask:
a page shown counts only if it is a page of the question's own document (another document's pages take the budget),
and each row has ``doc_rank``, where the own document first appears among the documents of the evidence. ``qa`` mode
adds the answer, the short answer an LLM extracts (appendix A.1, :mod:`.answers`) and their scores
(:mod:`.metrics`; ``judge=True``: an LLM judge); extraction and judge are not the system's cost. Runs are deterministic
given caches and index. Every question is scored: a failed document or method makes a miss whose ``error`` says why.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Any, Literal

from ..config import Settings
from ..db.client import Neo4jClient
from ..errors import Neo4jUnavailableError, reason
from ..index.on_demand import OnDemandLayers
from ..index.pipeline import Indexer
from ..library.documents import find_document
from ..llm.chat import ChatModel
from ..llm.factory import Models
from ..llm.usage import track_usage
from ..methods import METHODS, Retriever, method_name
from ..retrieval import subtrees
from .answers import extract_answer, judge_answer
from .benchmark import Benchmark, BenchQuestion
from .metrics import exact_match, financebench_score, inclusion, mmlongbench_score, page_recall, page_recall_within, token_f1
from .scored import EvalRow, RetrievedUnit

log = logging.getLogger(__name__)

Mode = Literal["retrieval", "qa"]
Scope = Literal["document", "library"]
PAGE_BUDGET = 5  # recall@5p: recall within the first 5 distinct pages shown, the same budget for every unit
WIDE_PAGE_BUDGET = 10  # recall@10p: within the first 10 distinct pages
DEFAULT_METHODS = ("bookrag", "bm25", "dense", "layout-vanilla", "graphranker")


async def evaluate(db: Neo4jClient, settings: Settings, models: Models, bench: Benchmark, *,
                   methods: Sequence[str] = DEFAULT_METHODS, mode: Mode = "retrieval", scope: Scope = "document",
                   use_llm: bool = True, only_indexed: bool = False, judge: bool = False,
                   progress: Callable[[str], None] | None = None) -> list[EvalRow]:
    """One row per (question, method); see the module docstring. ``methods``: names of the method registry
    (``bookrag methods``). ``scope``: ask each question of its own document, or of the whole library.
    ``only_indexed``: index no new document and keep the graphs as they are (e.g. built offline, then evaluated
    with an LLM); the questions about documents whose tree and graph are not complete are misses. ``judge``: also
    ask the LLM judge (needs an LLM). Only Neo4j going away ends the run."""
    methods = [method_name(m) for m in methods]
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise ValueError(f"unknown methods {unknown}; known: {', '.join(METHODS)}")
    ready = {d.name for d in await subtrees.scope_documents(db, None) if d.graph_version} if only_indexed else None
    indexer = Indexer(db, settings, models, use_llm=use_llm)
    layers = OnDemandLayers(db, settings)
    keys: dict[str, str] = {}
    failed: dict[str, str] = {}  # document -> why its questions are misses
    for doc in sorted({q.doc for q in bench.questions}):  # a no-op for an indexed PDF, but for missing embeddings
        if ready is not None and doc not in ready:
            failed[doc] = "not indexed with a graph (--only-indexed indexes nothing)"
            continue
        try:
            keys[doc] = (await indexer.index(bench.pdf(doc), knowledge_graph=not only_indexed)).doc_key
            for name in methods:  # layers a method reads that are built on first use (the layout layer): not timed
                await METHODS[name].prepare(layers, models, await find_document(db, keys[doc]), settings)
        except Neo4jUnavailableError:  # nothing more can be scored
            raise
        except Exception as exc:  # this document's questions are misses; the run goes on
            failed[doc] = reason(exc)
            log.warning("%s: %s; its questions count as misses", doc, failed[doc])
    retriever = Retriever(db, settings, models, use_llm=use_llm, layers=layers)
    llm = models.llm if use_llm else None  # answer extraction and the judge
    rows = []
    for question in bench.questions:
        for method in methods:
            if question.doc in failed:
                rows.append(_miss(bench.name, question, method, failed[question.doc]))
                continue
            try:
                rows.append(await _run_one(retriever, llm, question, keys[question.doc], method, mode=mode,
                                           scope=scope, judge=judge, bench=bench.name))
            except Neo4jUnavailableError:
                raise
            except Exception as exc:  # one question's failure is a miss, not the end of the run
                log.warning("%s with %s: %s", question.id, method, reason(exc))
                rows.append(_miss(bench.name, question, method, reason(exc)))
        if progress:
            progress(question.id)
    return rows


async def _run_one(retriever: Retriever, llm: ChatModel | None, question: BenchQuestion, doc_key: str, method: str,
                   *, mode: Mode, scope: Scope, judge: bool, bench: str) -> EvalRow:
    """One (question, method) row: retrieval (and in qa mode the answer and its scores)."""
    began = time.perf_counter()
    asked = [doc_key] if scope == "document" else None
    with track_usage() as ledger:
        answer = None
        if mode == "qa":
            result = await retriever.ask(question.question, asked, method=method)
            answer, nodes = result.text, result.evidence
        else:
            nodes = (await retriever.retrieve(question.question, asked, method=method)).nodes
        units = [RetrievedUnit(key=n.key, kind=n.kind, pages=n.pages, doc=n.doc_key) for n in nodes]
    seconds, usage = time.perf_counter() - began, ledger.total()
    row = _score(bench, question, method, units, seconds, usage.calls, usage.total_tokens,
                 own=doc_key if scope == "library" else None)
    if answer is not None:
        extracted = await extract_answer(llm, question.question, answer, answer_format=question.answer_format or "")
        _score_answer(row, question, answer, extracted)
        if judge and llm is not None:
            verdict = await judge_answer(llm, question.question, question.answer, answer)
            row.judge = None if verdict is None else float(verdict)
    return row


def _miss(bench: str, q: BenchQuestion, method: str, why: str) -> EvalRow:
    """A row with nothing retrieved (page recall 0) and ``error``: why."""
    row = _score(bench, q, method, [], 0.0, 0, 0)
    row.error = why
    return row


def _score(bench: str, q: BenchQuestion, method: str, units: list[RetrievedUnit], seconds: float, calls: int,
           tokens: int, own: str | None = None) -> EvalRow:
    """The row's measures; ``own``: the question's document in a library-wide run, whose pages alone count (a
    page is then a (document, page) pair, so another document's page 12 is not the own document's)."""
    gold: list[Any] = list(q.evidence_pages)
    pages: list[list[Any]] = [list(u.pages) for u in units]
    documents: list[str] = []
    if own is not None:
        gold = [(own, p) for p in gold]
        pages = [[(u.doc, p) for p in u.pages] for u in units]
        documents = list(dict.fromkeys(u.doc for u in units))
    row = EvalRow(
        benchmark=bench, id=q.id, doc=q.doc, method=method, question=q.question,
        category=q.category, sources=q.sources, doc_type=q.doc_type,
        gold_answer=q.answer, gold_pages=q.evidence_pages,
        retrieved=units, units=len(units),
        retrieved_pages=sorted({p for u in units if own is None or u.doc == own for p in u.pages}),
        recall=page_recall(gold, pages),
        recall_at_5=page_recall(gold, pages, budget=5),
        recall_at_10=page_recall(gold, pages, budget=10),
        pages=len({p for ps in pages for p in ps}),
        recall_at_5p=page_recall_within(gold, pages, PAGE_BUDGET),
        recall_at_10p=page_recall_within(gold, pages, WIDE_PAGE_BUDGET),
        seconds=round(seconds, 4), llm_calls=calls, tokens=tokens,
    )
    if own is not None:  # set only asked of the library: the row's record has them then
        row.scope, row.documents = "library", len(documents)
        row.doc_rank = documents.index(own) + 1 if own in documents else None
    return row


def _score_answer(row: EvalRow, q: BenchQuestion, answer: str, extracted: str) -> None:
    """Set the row's answer, extracted short answer and their scores (set: the row's record has them)."""
    row.answer, row.extracted = answer, extracted
    row.score = (mmlongbench_score(extracted, q.answer, q.answer_format) if q.answer_format
                 else financebench_score(extracted, q.answer))
    row.em, row.f1 = exact_match(extracted, q.answer), token_f1(extracted, q.answer)
    row.inclusion = inclusion(answer, q.answer)
