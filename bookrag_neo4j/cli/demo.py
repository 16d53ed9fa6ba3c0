"""The first five minutes (``bookrag demo``, run by ``make demo``): index a real manual, ask one question of
each category the planner knows (single-hop, multi-hop, global), print the answers with their citations, and
the Neo4j Browser links to explore the index and each answer's evidence.

    from bookrag_neo4j.cli.demo import run_demo
    answers = asyncio.run(run_demo(Settings(), Path("/usr/share/R/doc/manual/R-intro.pdf"), Path("bookrag-demo")))

With an LLM configured (``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``, or the local model) indexing and answering
use it; without one everything runs offline (sections from the PDF's outline, entities by spaCy, the ranked
evidence passages as the answer).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from rich.console import Console
from rich.rule import Rule

from ..browse import browser_url, managed_browser
from ..config import Settings
from ..first_questions import first_questions
from ..retrieval.results import Answer
from ..sdk import BookRAG
from .progress_bars import RichProgress


async def run_demo(settings: Settings, pdf: Path, out: Path, questions: list[tuple[str, str]] | None = None,
                   console: Console | None = None) -> list[Answer]:
    """Index ``pdf`` (a no-op when it is indexed and unchanged), answer ``questions`` (category, question;
    default :func:`~bookrag_neo4j.first_questions.first_questions` of the document), write each answer as JSON
    under ``out`` and print everything a new user wants to see."""
    console = console or Console()
    out.mkdir(parents=True, exist_ok=True)
    rag = BookRAG(settings)
    llm = rag.models.llm
    mode = f"LLM {llm.model}" if llm is not None else "offline (no LLM configured)"
    async with rag:
        console.print(Rule(f"Indexing {pdf.name}: {mode}"))
        began = time.perf_counter()
        report = await rag.aindex(pdf, progress=RichProgress())
        indexed = time.perf_counter() - began
        summary = f"{report.name}: {report.pages} pages, sections {report.sections_by_level}, blocks {report.blocks_by_type}"
        if report.graph:
            summary += f"; {report.graph.entities} entities, {report.graph.relations} relations, " \
                       f"{report.graph.gt_links} GT-Links"
        console.print(summary + (" (already indexed, unchanged)" if report.status == "unchanged" else ""),
                      soft_wrap=True)
        answers = []
        questions = questions or first_questions(report.name, await rag.atoc(report.doc_key))
        for i, (expected, question) in enumerate(questions, 1):
            answer = await rag.aask(question, doc=report.doc_key)
            answers.append(answer)
            (out / f"answer-{i}.json").write_text(json.dumps(answer.model_dump(mode="json"), indent=2))
            _print_answer(console, i, expected, answer)
        answered = time.perf_counter() - began - indexed
    console.print(Rule("Time"))
    console.print(f"indexing {indexed:.1f} s ({report.status}), {len(answers)} answers {answered:.1f} s")
    _print_links(console, settings, report.name, out, answers)
    return answers


def _print_answer(console: Console, i: int, expected: str, answer: Answer) -> None:
    plan = answer.plan
    console.print(Rule(f"Question {i}, {expected}"))
    console.print(f"[bold]{answer.question}[/]", soft_wrap=True)
    if plan:
        note = next((s.params["note"] for s in plan.steps if "note" in s.params), "")
        console.print(f"planner: {plan.category} (classified by {plan.classified_by})" + (f"; {note}" if note else ""),
                      soft_wrap=True)
    how = ""
    if answer.extractive:  # no LLM wrote it
        counted = plan is not None and any(step.operator == "Count" for step in plan.steps)
        how = " (no LLM: counted in the index)" if counted else " (no LLM: the ranked evidence itself)"
    console.print(f"answer{how}:\n")
    console.print(answer.text, markup=False, highlight=False, soft_wrap=True)
    if answer.citations:
        console.print("\nSources:")
        for j, citation in enumerate(answer.citations, 1):
            console.print(f"  [{j}] {citation.label}", markup=False, highlight=False, soft_wrap=True)


def _print_links(console: Console, settings: Settings, name: str, out: Path, answers: list[Answer]) -> None:
    base, login = managed_browser(settings)
    console.print(Rule("Explore the index in Neo4j Browser"))
    console.print(f"Browser: http://localhost:{settings.neo4j.http_port}/browser/ ({login})", soft_wrap=True)
    console.print("Load the BookIndex style once:  bookrag browse --style --open")
    console.print(f"The table of contents:          {browser_url(base, 'toc', {'doc': name})}", soft_wrap=True)
    for i, answer in enumerate(answers, 1):
        if answer.evidence:
            console.print(f"Answer {i}'s evidence:           bookrag browse --answer-trace {out / f'answer-{i}.json'}"
                          " --open", soft_wrap=True)
    console.print(Rule("Ask in the web app"))
    console.print("Start it:  bookrag serve   then open  http://127.0.0.1:8000/  (upload PDFs, ask, see each "
                  "citation's page with the evidence boxed)", soft_wrap=True)
