"""``bookrag bench scale --clone`` without a server: clone keys, the run file and its resume checks, the report
and plot, a cold question's figures from a process of its own, the command's option checks. (Clones and the
measured curve against Neo4j: ``tests/integration/test_scale_clone.py``, ``tests/integration/test_scale_curve.py``.)"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bookrag_neo4j.cli import app
from bookrag_neo4j.errors import ScaleRunError
from bookrag_neo4j.eval.bench_scale import write_run
from bookrag_neo4j.eval.scale_clone import Shape, clone_key
from bookrag_neo4j.eval.scale_curve import ColdProcess, cold_question, load_curve, write_curve
from bookrag_neo4j.eval.scale_run import (
    RUN_FILE,
    Cold,
    ColdRun,
    CurveConfig,
    CurveRow,
    CurveRun,
    Latency,
    ScaleConfig,
    ScaleRun,
)
from bookrag_neo4j.keys import key_prefix

CONFIG = CurveConfig(questions=["q?"], method="bookrag", repeat=1, llm=False, cold=True, sources=["a" * 32])
MIB = 2**20


def row(documents: int, rss_mib: float) -> CurveRow:
    latency = Latency(p50_ms=50.0 + documents, p95_ms=70.0 + documents, with_models_p50_ms=90.0,
                      with_models_p95_ms=110.0, runs=3, mean_evidence_nodes=10)
    cold = Cold(median_s=2.0, max_s=2.5, max_rss_kb=int(rss_mib * 1024),
                runs=[ColdRun(question="q?", seconds=2.0, max_rss_kb=int(rss_mib * 1024), evidence=10)])
    return CurveRow(documents=documents, clones=documents - 1, clones_made=documents - 1, clone_seconds=1.0,
                    pages=10 * documents, tree_nodes=100 * documents, entities=50 * documents, nodes=1000,
                    relationships=5000, cold_document=cold, cold_library=cold, warm_document=latency,
                    warm_library=latency, client_rss_bytes=500 * MIB, client_peak_rss_bytes=600 * MIB,
                    heap_used_bytes=400 * MIB, heap_committed_bytes=512 * MIB, heap_max_bytes=1024 * MIB,
                    old_gen_used_bytes=200 * MIB, pagecache_bytes=512 * MIB, store_bytes=None, tx_log_bytes=None,
                    gds_projections=2, gds_projection_bytes=60 * MIB, run=1, measured_at="2025-01-01T00:00:00+00:00")


def test_a_clone_key_has_a_prefix_of_its_own_and_the_source_tail() -> None:
    source = "0123456789abcdef" + "fedcba9876543210"
    first, again, second = clone_key(source, 1), clone_key(source, 1), clone_key(source, 2)
    assert first == again and len(first) == 32 and first.endswith(source[16:])
    assert len({key_prefix(source), key_prefix(first), key_prefix(second)}) == 3
    assert key_prefix(clone_key(first, 1)) != key_prefix(first)  # a clone of a clone: another prefix again


def test_what_a_clone_holds_is_its_source_less_the_links_to_other_documents() -> None:
    shape = Shape(labels={"Entity": 3, "Document": 1}, outgoing={"RELATED own": 4, "SAME_AS other": 2,
                                                                 "HAS_KEYWORD shared": 5},
                  incoming_other=1, foreign_keys=0)
    copied = shape.copied()
    assert copied.outgoing == {"RELATED own": 4, "HAS_KEYWORD shared": 5} and copied.incoming_other == 0
    assert copied.labels == shape.labels


def test_the_run_file_resumes_and_refuses_other_options_or_an_ingest_run(tmp_path: Path) -> None:
    assert load_curve(tmp_path, CONFIG, [2, 4]).rows == []
    write_curve(tmp_path, CurveRun(config=CONFIG, source_names=["a.pdf"], sizes=[2, 4], rows=[row(2, 300)]))
    resumed = load_curve(tmp_path, CONFIG, [2, 4, 8])
    assert [r.documents for r in resumed.rows] == [2] and resumed.sizes == [2, 4, 8]
    with pytest.raises(ScaleRunError, match="other options"):
        load_curve(tmp_path, CONFIG.model_copy(update={"sources": ["b" * 32]}), [2])
    ingest = tmp_path / "ingest"
    write_run(ingest, ScaleRun(config=ScaleConfig(stages="graph", questions=["q?"], method="bookrag", repeat=1,
                                                  llm=False), sizes=[1], documents=[]))
    with pytest.raises(ScaleRunError, match="not a bench scale --clone run file"):
        load_curve(ingest, CONFIG, [2])


def test_the_report_says_the_library_was_cloned_and_the_plot_is_drawn(tmp_path: Path) -> None:
    run = CurveRun(config=CONFIG, source_names=["a.pdf"], sizes=[2, 4, 40],
                   rows=[row(2, 300), row(4, 310), row(40, 350)])
    write_curve(tmp_path, run)
    report = (tmp_path / "report.md").read_text()
    assert "built by **cloning** the 1 indexed document(s) (a.pdf)" in report
    assert "| 40 | 39 | 400 | 2.00 s, 350 MiB |" in report
    png = (tmp_path / "scale.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 20_000
    assert CurveRun.model_validate_json((tmp_path / RUN_FILE).read_text()) == run


# A stand-in for ``bookrag retrieve --json``: holds $MIB MiB, prints two evidence nodes (or fails).
FAKE_RETRIEVE = textwrap.dedent("""
    import json, os, sys
    held = b"x" * (int(os.environ["FAKE_MIB"]) * 2**20)
    if os.environ.get("FAKE_FAIL"):
        sys.exit("no such document")
    print(json.dumps({"evidence": [{"key": "a"}, {"key": "b"}], "argv": sys.argv[1:]}))
""")


async def test_a_cold_question_reports_its_own_process_memory_not_the_bench_s() -> None:
    ballast = b"y" * (300 * MIB)  # the bench process is large (models, caches); its child must not report that
    process = ColdProcess(command=(sys.executable, "-c", FAKE_RETRIEVE), env={"FAKE_MIB": "40"})
    cold = await cold_question(process, "Who?", "k1", llm=False, method="bookrag")
    assert cold.evidence == 2 and cold.seconds > 0
    assert 40 * 1024 < cold.max_rss_kb < 150 * 1024, cold.max_rss_kb  # the 40 MiB it held, not the 300 here
    assert len(ballast) == 300 * MIB
    assert process.argv("Who?", "k1", llm=False, method="bookrag")[3:] == [
        "retrieve", "Who?", "--json", "--method", "bookrag", "--no-llm", "--doc", "k1"]
    assert process.argv("Who?", None, llm=True, method="g2")[3:] == ["retrieve", "Who?", "--json", "--method", "g2"]
    failing = ColdProcess(command=process.command, env={"FAKE_MIB": "1", "FAKE_FAIL": "1"})
    with pytest.raises(ScaleRunError, match="no such document"):
        await cold_question(failing, "Who?", None, llm=False, method="bookrag")


def test_clone_options_go_one_at_a_time() -> None:
    both = CliRunner().invoke(app, ["bench", "scale", "--clone", "--drop-clones"])
    assert both.exit_code == 2 and "one at a time" in both.output
