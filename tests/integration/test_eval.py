"""`bookrag eval` end to end on a two-question mini benchmark built here (a real FinanceBench 8-K, no LLM):
every method and ablation runs, recall is scored against the gold page, the reports and plots are written;
the benchmark loader's errors."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from bookrag_neo4j.eval.benchmark import BenchmarkError, load_benchmark
from bookrag_neo4j.eval.report import write_report
from bookrag_neo4j.eval.runner import evaluate
from bookrag_neo4j.eval.summary import summarise
from bookrag_neo4j.index.pipeline import Indexer
from bookrag_neo4j.keys import file_key
from bookrag_neo4j.llm import Models
from bookrag_neo4j.llm.scripted import ScriptedChatModel
from bookrag_neo4j.methods import METHODS

from ..helpers.cli import run_cli
from ..helpers.counts import database_counts
from ..helpers.pdfs import FOOTLOCKER, need, tiny_pdf
from ..helpers.timeouts import LONG_TEST

pytestmark = pytest.mark.timeout(LONG_TEST)  # indexes a real 8-K; every method and ablation runs on it
QUESTIONS = [
    {"id": "fb-00822", "doc": FOOTLOCKER.name, "answer": "Yes, his name is Richard A. Johnson",
     "question": "Were there any board member nominees who had substantially more votes against joining than "
                 "the other nominees?", "question_type": "novel-generated", "evidence_pages": [2]},
    {"id": "mini-2", "doc": FOOTLOCKER.name, "answer": "10", "answer_format": "Int",
     "question": "How many directors were elected at the annual meeting?", "evidence_pages": [2],
     "evidence_sources": ["Table"], "doc_type": "Financial report"},
]


@pytest.fixture
def mini(tmp_path: Path) -> Path:
    (tmp_path / "pdfs").mkdir()
    shutil.copy(need(FOOTLOCKER), tmp_path / "pdfs" / FOOTLOCKER.name)
    (tmp_path / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    return tmp_path


def test_benchmark_folders_are_checked(tmp_path: Path, mini: Path) -> None:
    bench = load_benchmark(mini)
    assert [q.category for q in bench.questions] == ["novel-generated", "single-page"]
    assert bench.questions[1].sources == ["table"] and bench.questions[0].sources == []
    with pytest.raises(BenchmarkError, match="needs questions.jsonl"):
        load_benchmark(tmp_path / "pdfs")
    (mini / "questions.jsonl").write_text(json.dumps({**QUESTIONS[0], "doc": "missing.pdf"}) + "\n")
    assert load_benchmark(mini).questions[0].doc == "missing.pdf"  # a missing PDF: its questions are misses


async def test_every_method_runs_and_is_scored(db, settings, mini: Path, tmp_path: Path) -> None:
    bench = load_benchmark(mini)
    models = Models.from_settings(settings)
    rows = await evaluate(db, settings, models, bench, methods=METHODS, mode="qa", use_llm=False)
    assert len(rows) == 2 * len(METHODS)
    for row in rows:
        assert 0.0 <= row.recall_at_5 <= row.recall_at_10 <= row.recall <= 1.0
        budget = 13 if row.method.startswith("superrag") else 10  # SuperRAG: 10 contexts and 3 tables
        assert row.units <= budget and row.retrieved_pages == sorted({p for u in row.retrieved for p in u.pages})
        assert row.pages == len(row.retrieved_pages) and row.recall_at_5p <= row.recall
        assert "answer" in row.record() and "doc_rank" not in row.record()  # every method answers (extractively)
    by = {(r.id, r.method): r for r in rows}
    # the votes question: BM25 over passages and BookRAG both reach the gold page 2 of this short filing
    assert by[("fb-00822", "bm25")].recall == 1.0 and by[("fb-00822", "bookrag")].recall == 1.0
    for name in ("bm25", "dense"):  # the baselines' unit is the layout layer's passage, with its section path
        assert {u.kind for u in by[("fb-00822", name)].retrieved} == {"passage"}
    # --only-indexed: the filing is indexed now; a question about a document that is not is a miss, with why
    (mini / "pdfs" / "other.pdf").write_bytes(FOOTLOCKER.read_bytes()[:100])
    other = {**QUESTIONS[0], "id": "other", "doc": "other.pdf"}
    (mini / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in [*QUESTIONS, other]))
    again = await evaluate(db, settings, models, load_benchmark(mini), methods=["bm25"], only_indexed=True)
    assert [r.id for r in again] == ["fb-00822", "mini-2", "other"]
    assert [r.recall for r in again] == [by[("fb-00822", "bm25")].recall, by[("mini-2", "bm25")].recall, 0]
    assert again[2].error is not None and "not indexed" in again[2].error and summarise(again).partial

    summary = summarise(rows)
    assert set(summary.methods) == set(METHODS) and summary.questions == 2
    assert summary.methods["bm25"].recall_by["sources"]["table"] == by[("mini-2", "bm25")].recall
    paths = write_report(tmp_path / "out", rows, summary)
    written = [json.loads(line) for line in paths["questions"].read_text().splitlines()]
    assert written == [r.record() for r in rows] and written[0]["recall@5p"] == rows[0].recall_at_5p
    assert "| bookrag-no-graph |" in paths["markdown"].read_text()
    import matplotlib.image

    for name in ("plot_recall", "plot_sources", "plot_cost"):
        image = matplotlib.image.imread(paths[name])
        assert image.shape[0] > 100 and image.shape[1] > 100


async def test_qa_scores_the_extracted_answer_and_asks_the_judge(db, settings, mini: Path) -> None:
    """Appendix A.1 with a scripted model: the system answers in a sentence, the extraction copies "10" out of
    it (scored by MMLongBench's Int rule and EM), inclusion reads the raw answer, the judge gives its verdict;
    the evaluator's calls are not the system's cost. Other prompts get no JSON: the agent's fallbacks run."""
    def script(messages: list[dict]) -> str:
        text = " ".join(m["content"] for m in messages if isinstance(m["content"], str))
        if "extract the final answer" in text:
            return '{"extracted_answer": 10, "answer_format": "Int"}'
        if "grade a response" in text:
            return '{"correct": true, "reason": "ten"}'
        if '"sources"' in text:
            return '{"answer": "Ten directors were elected at the meeting [1].", "sources": [1]}'
        return "no JSON"

    await Indexer(db, settings, Models.from_settings(settings), use_llm=False).index(FOOTLOCKER)  # graph offline
    llm = ScriptedChatModel(script)
    bench = replace(load_benchmark(mini), questions=load_benchmark(mini).questions[1:])
    (row,) = await evaluate(db, settings, Models.from_settings(settings, llm=llm), bench, methods=["bookrag"],
                            mode="qa", only_indexed=True, judge=True)
    assert row.answer == "Ten directors were elected at the meeting [1]." and row.extracted == "10"
    assert row.score == 1.0 and row.em == 1.0 and row.f1 == 1.0 and row.judge == 1.0
    assert row.inclusion == 0.0  # "10" is not in the raw sentence: inclusion is on the raw response
    extraction_calls = sum("extract the final answer" in str(r) or "grade a response" in str(r) for r in llm.requests)
    assert extraction_calls == 2 and row.llm_calls == len(llm.requests) - 2
    assert summarise([row]).methods["bookrag"].judge == 1.0


def test_the_cli_writes_a_report(settings, neo4j_server, mini: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    result = run_cli(settings, "eval", str(mini), "--no-llm", "--limit", "1", "--methods", "bookrag,dense,bookrag-no-text",
                     "--out", str(out), "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert set(summary["methods"]) == {"bookrag", "dense", "bookrag-no-text"} and summary["questions"] == 1
    assert (out / "summary.json").is_file() and (out / "recall_by_method.png").is_file()
    (part,) = summary["parts"]  # the ablation beside its method: does Text_Reasoning help?
    assert (part["method"], part["ablation"]) == ("bookrag", "bookrag-no-text") and "all" in part["delta"]
    assert "## Does each part help?" in (out / "report.md").read_text()
    bad = run_cli(settings, "eval", str(mini), "--methods", "bookrag,magic")
    assert bad.returncode != 0 and "unknown methods" in bad.stdout + bad.stderr


def test_a_library_wide_run_counts_only_the_own_documents_pages(settings, neo4j_server, mini: Path,
                                                                 tmp_path: Path) -> None:
    """`bookrag eval --scope library`: no document named, a distractor about board votes in the library; pages of
    another document never count, and the report says how often the own document comes first."""
    distractor = tiny_pdf(tmp_path / "votes.pdf", "Acme", "Ada Quill", "France", "votes against board nominees")
    assert run_cli(settings, "index", str(distractor), "--no-llm").returncode == 0
    out = tmp_path / "library"
    try:
        result = run_cli(settings, "eval", str(mini), "--no-llm", "--scope", "library", "--methods", "bm25,bookrag",
                         "--out", str(out), "--json")
        assert result.returncode == 0, result.stderr
        summary = json.loads(result.stdout)
        assert summary["scope"] == "library"
        rows = [json.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]
        own = file_key(mini / "pdfs" / FOOTLOCKER.name)
        assert len(rows) == 4
        for row in rows:
            assert row["scope"] == "library" and (row["doc_rank"] is None or row["doc_rank"] >= 1)
            assert row["retrieved_pages"] == sorted({p for u in row["retrieved"] if u["doc"] == own for p in u["pages"]})
        assert any(u["doc"] != own for r in rows for u in r["retrieved"])  # other documents competed
        assert set(summary["methods"]["bm25"]["own_document"]["all"]) == {"top1", "top3", "top5"}
        assert "## The question's own document, asked of the whole library" in (out / "report.md").read_text()
    finally:
        run_cli(settings, "docs", "delete", distractor.name)


async def test_bench_ingest_times_every_stage(db, settings, neo4j_server, tmp_path: Path) -> None:
    # as on a new server: without the key constraint each tree write scans the label (minutes a document)
    await db.run("DROP CONSTRAINT tree_node_key IF EXISTS")
    before = await database_counts(db, detailed=True)
    tree = run_cli(settings, "bench", "ingest", str(need(FOOTLOCKER)), "--json")
    assert tree.returncode == 0, tree.stderr
    assert await db.run("SHOW CONSTRAINTS YIELD name WHERE name = 'tree_node_key' RETURN name")  # applied first
    assert await database_counts(db, detailed=True) == before  # its trees deleted, an indexed copy untouched
    report = json.loads(tree.stdout)
    assert report["documents"] == 1 and report["pages"] > 0 and report["parse_pages_per_s"] > 0
    every = run_cli(settings, "bench", "ingest", str(FOOTLOCKER), "--all-stages", "--json", "--plot",
                    str(tmp_path / "stages.png"))
    assert every.returncode == 0, every.stderr
    stages = json.loads(every.stdout)
    assert stages["documents"] == 1 and stages["pages"] == report["pages"] and stages["embedded"] > 0
    assert {"tree.parse", "tree.write", "tree.embed", "graph.extract", "graph.resolve", "graph.write"} <= set(
        stages["seconds"])
    assert all(rate > 0 for rate in stages["per_second"].values())
    import matplotlib.image

    assert matplotlib.image.imread(tmp_path / "stages.png").shape[1] > 100


def test_a_bad_document_is_a_line_in_the_report_not_the_end_of_the_run(db, settings, mini: Path) -> None:
    """A damaged PDF and a missing one among the benchmark's: their questions are misses with the reason, the
    others are scored, report.md lists the reasons, the exit code says the run was partial (3)."""
    (mini / "pdfs" / "damaged.pdf").write_bytes(FOOTLOCKER.read_bytes()[:2000])
    rows = [*QUESTIONS, {**QUESTIONS[0], "id": "damaged", "doc": "damaged.pdf"},
            {**QUESTIONS[0], "id": "gone", "doc": "gone.pdf"}]
    (mini / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in rows))
    out = mini / "out"
    result = run_cli(settings, "eval", str(mini), "--methods", "bm25", "--no-llm", "--out", str(out))
    assert result.returncode == 3, result.stdout + result.stderr
    scored = {r["id"]: r for r in map(json.loads, (out / "questions.jsonl").read_text().splitlines())}
    assert set(scored) == {"fb-00822", "mini-2", "damaged", "gone"}
    assert scored["fb-00822"]["recall"] == 1.0 and "error" not in scored["fb-00822"]
    assert scored["damaged"]["recall"] == 0 and "damaged.pdf" in scored["damaged"]["error"]
    assert "no such file" in scored["gone"]["error"]
    report = (out / "report.md").read_text()
    assert "## Counted as misses" in report and "damaged.pdf" in report and "gone.pdf" in report
