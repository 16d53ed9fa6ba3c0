"""``bookrag bench scale`` without a server: row assembly (pages/s of what a run really indexed), the run file
and its resume checks, the document plan, the linear projection and its table, the plot, ``--project`` on the
command line. (The measured run against Neo4j: ``tests/integration/test_bench_scale.py``.)"""

from __future__ import annotations

import shutil
from pathlib import Path

import pymupdf
import pytest
from typer.testing import CliRunner

from bookrag_neo4j.cli import app
from bookrag_neo4j.errors import DocumentError, ScaleRunError
from bookrag_neo4j.eval.bench_scale import assemble_row, load_run, plan_documents, write_run
from bookrag_neo4j.eval.scale_probe import Footprint, ProjectionMemory, parse_size
from bookrag_neo4j.eval.scale_projection import fit_line, human, markdown_rows, plot_scale, project, projection_table
from bookrag_neo4j.eval.scale_run import DocumentOutcome, Latency, LibrarySize, ScaleConfig, ScaleRow, ScaleRun

CONFIG = ScaleConfig(stages="graph", questions=["q?"], method="bookrag", repeat=1, llm=False)
MIB = 2**20


def outcome(name: str, kind: str, pages: int = 10, seconds: float = 5.0) -> DocumentOutcome:
    return DocumentOutcome(name=name, key=f"k-{name}", pages=pages, outcome=kind, seconds=seconds)  # type: ignore[arg-type]


def footprint(store_mib: float, *, heap_mib: float = 100) -> Footprint:
    return Footprint(store_bytes=int(store_mib * MIB), tx_log_bytes=256 * MIB, store_source="local files",
                     heap_used_bytes=int(heap_mib * MIB), heap_committed_bytes=512 * MIB, heap_max_bytes=1024 * MIB,
                     old_gen_used_bytes=int(heap_mib * MIB / 2), pagecache_bytes=512 * MIB, nodes=1000, relationships=5000)


def measured_rows() -> list[ScaleRow]:
    """Three sizes of a library of 10-page documents growing exactly linearly: store 5 + 2 MiB a document,
    projection 20 + 1 MiB, p50 30 + 0.5 ms; 2 pages/s."""
    rows: list[ScaleRow] = []
    for size, new in ((1, 1), (3, 2), (5, 2)):
        batch = [outcome(f"d{size}-{i}", "indexed", seconds=5.0) for i in range(new)]
        latency = Latency(p50_ms=30 + 0.5 * size, p95_ms=40 + size, with_models_p50_ms=60 + size,
                          with_models_p95_ms=80 + size, runs=3, mean_evidence_nodes=10)
        projection = ProjectionMemory(nodes=100 * size, relationships=500 * size, size_bytes=(20 + size) * MIB,
                                      estimate_bytes=size * MIB // 2, seconds=0.1)
        rows.append(assemble_row(size=size, batch=batch, previous=rows, footprint=footprint(5 + 2 * size),
                                 counts=LibrarySize(pages=10 * size, tree_nodes=50 * size, entities=100 * size),
                                 projection=projection, latency=latency, run=1))
    return rows


def test_a_row_times_only_the_documents_this_run_indexed() -> None:
    first = assemble_row(size=2, batch=[outcome("a", "indexed", 10, 4.0), outcome("b", "indexed", 30, 16.0)],
                         previous=[], counts=LibrarySize(pages=40, tree_nodes=9, entities=7), footprint=footprint(3),
                         projection=None, latency=None, run=1)
    assert (first.indexed_documents, first.indexed_pages, first.ingest_seconds) == (2, 40, 20.0)
    assert first.ingest_pages_per_s == first.cumulative_pages_per_s == 2.0
    # resumed: c was complete (a no-op), d half-done by the interrupted run, e rejected; only f counts
    batch = [outcome("c", "reused", 20, 0.1), outcome("d", "partial", 20, 3.0), outcome("e", "failed", 0, 0.0),
             outcome("f", "indexed", 12, 3.0)]
    second = assemble_row(size=5, batch=batch, previous=[first], counts=LibrarySize(pages=92, tree_nodes=9, entities=7),
                          footprint=footprint(4), projection=None, latency=None, run=2)
    assert (second.new_documents, second.indexed_documents, second.partial_documents, second.reused_documents) == (
        3, 1, 1, 1)
    assert second.indexed_pages == 12 and second.ingest_pages_per_s == 4.0
    assert second.cumulative_pages_per_s == round(52 / 23, 2)  # (40 + 12) pages over (20 + 3) s
    assert second.store_bytes == 4 * MIB and second.run == 2 and second.outcomes == batch
    nothing = assemble_row(size=6, batch=[outcome("g", "reused")], previous=[], counts=LibrarySize(pages=1, tree_nodes=1,
                           entities=0), footprint=footprint(1), projection=None, latency=None, run=3)
    assert nothing.ingest_pages_per_s is None and nothing.cumulative_pages_per_s is None


def test_fit_line_and_projection() -> None:
    fit = fit_line([1, 2, 4], [5, 7, 11])
    assert fit.intercept == pytest.approx(3) and fit.slope == pytest.approx(2)
    assert fit_line([4], [10]).at(8) == pytest.approx(20)  # one point: through the origin
    with pytest.raises(ValueError):
        fit_line([], [])
    rows = measured_rows()
    p = project(rows, documents=10_000, deadline_hours=24)
    by_name = {m.name: m for m in p.metrics}
    assert p.pages == 100_000 and p.pages_per_document == 10
    store = by_name["store on disk"]
    assert store.per_document == pytest.approx(2 * MIB) and store.projected == pytest.approx((5 + 20_000) * MIB)
    assert store.measured == 15 * MIB
    assert by_name["GDS projection (measured)"].projected == pytest.approx((20 + 10_000) * MIB)
    assert by_name["retrieval p50"].projected == pytest.approx(30 + 5_000)
    assert store.r2 == pytest.approx(1.0) and not store.flat
    heap = by_name["heap in use"]  # constant: no growth to extrapolate, no variance to explain
    assert heap.flat and heap.projected == 100 * MIB and heap.r2 is None
    shrinking = [r.model_copy(update={"latency": r.latency.model_copy(update={"p95_ms": 90 - r.documents})})
                 for r in rows if r.latency]
    p95 = {m.name: m for m in project(shrinking, documents=10_000).metrics}["retrieval p95"]
    assert p95.flat and p95.projected == 89 and p95.per_document < 0  # projected flat at the largest measured
    assert by_name["entities"].projected == pytest.approx(1_000_000)
    assert p.pages_per_s_per_worker == 2.0
    assert p.single_worker_hours == round(100_000 / 2 / 3600, 1) and p.workers == 1  # 13.9 h < 24 h
    assert project(rows, documents=10_000, deadline_hours=1).workers == 14
    by_docs = project(rows, documents=10_000, basis="documents")
    assert {m.name: m.projected for m in by_docs.metrics}["store on disk"] == pytest.approx(store.projected)
    table = projection_table(p)
    assert "| store on disk | 15.0 MiB | 2.0 MiB | 19.5 GiB |" in table
    assert "1 workers to finish within 24 h" in table and "page cache to hold the whole store: 19.5 GiB" in table
    assert "| heap in use | 100.0 MiB | 0 B | 100.0 MiB (flat) | n/a |" in table
    assert "one library-wide GDS projection takes 9.8 GiB, on top of the server's own use (100.0 MiB" in table
    with pytest.raises(ValueError):
        project([], documents=10)


def test_sizes_print_and_parse() -> None:
    assert human(3 * 2**30, "bytes") == "3.0 GiB" and human(512, "bytes") == "512 B" and human(None, "ms") == "n/a"
    assert parse_size("512.00MiB") == 512 * MIB and parse_size("4g") == 4 * 2**30 and parse_size("1024") == 1024
    assert parse_size("lots") is None


def test_run_file_resumes_only_with_the_same_options_and_documents(tmp_path: Path) -> None:
    rows = measured_rows()
    docs = [o for r in rows for o in r.outcomes]
    plan = [{"path": f"/x/{o.name}.pdf", "key": o.key, "name": f"{o.name}.pdf", "pages": 10} for o in docs]
    run = ScaleRun(config=CONFIG, sizes=[1, 3, 5], documents=plan, rows=rows)  # type: ignore[arg-type]
    write_run(tmp_path, run)
    assert "| 5 | 50 | 15.0 MiB |" in (tmp_path / "report.md").read_text()
    again = load_run(tmp_path, CONFIG, [1, 3, 5, 8], run.documents)
    assert again.rows == rows and again.sizes == [1, 3, 5, 8]
    with pytest.raises(ScaleRunError, match="other options"):
        load_run(tmp_path, CONFIG.model_copy(update={"stages": "all"}), [1], run.documents)
    with pytest.raises(ScaleRunError, match="other documents"):
        load_run(tmp_path, CONFIG, [1], list(reversed(run.documents)))
    assert load_run(tmp_path / "new", CONFIG, [2], run.documents).rows == []
    (tmp_path / "scale.json").write_text("{not json")
    with pytest.raises(ScaleRunError):
        load_run(tmp_path, CONFIG, [1], run.documents)


def test_markdown_names_resumed_and_failed_documents() -> None:
    rows = measured_rows()
    rows[2] = rows[2].model_copy(update={"reused_documents": 1, "run": 2,
                                         "outcomes": [*rows[2].outcomes, outcome("bad", "failed")]})
    text = markdown_rows(ScaleRun(config=CONFIG, sizes=[1, 3, 5], documents=[], rows=rows))
    assert "5 documents: 1 reused, 0 finished (run 2)" in text and "left out (failed): bad" in text


def test_plan_deduplicates_by_content_and_refuses_two_files_of_one_name(tmp_path: Path) -> None:
    for name, pages in (("long.pdf", 3), ("short.pdf", 1)):
        pdf = pymupdf.open()
        for n in range(pages):
            pdf.new_page().insert_text((72, 72), f"{name} page {n}")
        pdf.save(tmp_path / name)
    shutil.copy(tmp_path / "long.pdf", tmp_path / "copy.pdf")
    plan = plan_documents([tmp_path / "long.pdf", tmp_path / "copy.pdf", tmp_path / "short.pdf"])
    assert [d.name for d in plan] == ["long.pdf", "short.pdf"] and plan[0].pages == 3
    assert [d.name for d in plan_documents([tmp_path / "long.pdf", tmp_path / "short.pdf"], order="pages")] == [
        "short.pdf", "long.pdf"]
    (tmp_path / "other").mkdir()
    shutil.copy(tmp_path / "short.pdf", tmp_path / "other" / "long.pdf")
    with pytest.raises(DocumentError, match="different files named long.pdf"):
        plan_documents([tmp_path / "long.pdf", tmp_path / "other" / "long.pdf"])
    with pytest.raises(DocumentError, match="no such file"):
        plan_documents([tmp_path / "missing.pdf"])


def test_plot_and_project_on_the_command_line(tmp_path: Path) -> None:
    rows = measured_rows()
    assert plot_scale(rows, tmp_path / "scale.png").stat().st_size > 10_000
    write_run(tmp_path, ScaleRun(config=CONFIG, sizes=[1, 3, 5], documents=[], rows=rows))
    result = CliRunner().invoke(app, ["bench", "scale", "--project", "10000", "--from", str(tmp_path / "scale.json"),
                                      "--deadline-hours", "1", "--plot", str(tmp_path / "p.png")])
    assert result.exit_code == 0, result.output
    assert "Projected to 10,000 documents (100,000 pages" in result.output and "14 workers" in result.output
    assert (tmp_path / "p.png").is_file()
    missing = CliRunner().invoke(app, ["bench", "scale", "--project", "10", "--from", str(tmp_path / "nothing")])
    assert missing.exit_code != 0 and isinstance(missing.exception, ScaleRunError)
    bad = CliRunner().invoke(app, ["bench", "scale", "--sizes", "1,x"])
    assert bad.exit_code == 2 and "comma-separated numbers" in bad.output


def test_latency_without_models_counts_overlapping_model_time_once() -> None:
    from bookrag_neo4j.eval.bench_query import model_free_seconds
    from bookrag_neo4j.retrieval.plan import Plan, PlanStep, TraceStep
    from bookrag_neo4j.retrieval.results import Evidence

    steps = [PlanStep(id="embed", operator="Embed"), PlanStep(id="extract", operator="Extract"),
             PlanStep(id="by_entity", operator="Select_by_Entity", after=["extract"]),
             PlanStep(id="by_section", operator="Select_by_Section", after=["embed"]),
             PlanStep(id="fetch", operator="Fetch", after=["by_entity", "by_section"])]
    trace = [TraceStep(step="plan", operator="Plan", seconds=0.010, model_seconds=0.004),
             TraceStep(step="embed", operator="Embed", seconds=0.040, model_seconds=0.040),
             TraceStep(step="extract", operator="Extract", seconds=0.080, model_seconds=0.072),
             TraceStep(step="by_entity", operator="Select_by_Entity", seconds=0.002),
             TraceStep(step="by_section", operator="Select_by_Section", seconds=0.019),
             TraceStep(step="fetch", operator="Fetch", seconds=0.007)]
    evidence = Evidence(question="q", plan=Plan(question="q", steps=steps, output="fetch"), trace=trace)
    # waves: {embed, extract} 80 ms, 8 without models; {by_entity, by_section} 19; fetch 7; the plan step alone
    assert model_free_seconds(evidence, 0.125) == pytest.approx(0.125 - 0.004 - 0.072)
    # a trace whose step ids repeat (no plan to follow) subtracts every step's model time
    repeated = Evidence(question="q", trace=[*trace, trace[1]])
    assert model_free_seconds(repeated, 0.2) == pytest.approx(0.2 - 0.004 - 0.040 - 0.072 - 0.040)
