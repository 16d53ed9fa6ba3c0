"""The real `bookrag` console script against the test server."""

from __future__ import annotations

import json

import pytest

from bookrag_neo4j.config import Settings
from bookrag_neo4j.doctor import _graph_checks

from ..helpers.cli import run_cli


def test_status_json(settings: Settings, neo4j_server) -> None:
    proc = run_cli(settings, "neo4j", "status", "--json")
    assert proc.returncode == 0, proc.stderr
    status = json.loads(proc.stdout)
    for field in ("running", "uri", "username", "password_file", "neo4j_version", "gds_version", "mode"):
        assert field in status
    assert status["running"] is True
    assert status["neo4j_version"].startswith("5.26")
    assert status["gds_version"].startswith("2.13")


def test_init_rebuilds_the_fulltext_indexes(settings: Settings, neo4j_server, schema) -> None:
    proc = run_cli(settings, "neo4j", "init", "--rebuild-fulltext")
    assert proc.returncode == 0, proc.stderr
    assert "indexes ONLINE" in proc.stdout + proc.stderr  # rich writes to stderr


async def test_doctor_json(settings: Settings, neo4j_server, schema) -> None:
    proc = run_cli(settings, "doctor", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["neo4j"]["ok"] and report["gds"]["ok"] and report["vector_index"]["ok"]
    assert "384 dims, ONLINE" in report["vector_index"]["detail"]
    assert report["graph_reasoning"]["ok"] and report["graph_reasoning"]["detail"].startswith((
        "PageRank on plugin: the server has bookrag-neo4j's plugin",  # the default, auto, where the server has it
        "PageRank on gds: the server has GDS"))  # a server without the plugin (NEO4J_URI)
    # the engine forced (the same checks as the command's, in this process: a command a setting costs seconds)
    local = (await _graph_checks(settings.replace(ppr_engine="local")))["graph_reasoning"]
    assert local.ok and local.detail == "PageRank on local: BOOKRAG_PPR_ENGINE=local"
    gds = (await _graph_checks(settings.replace(ppr_engine="gds")))["graph_reasoning"]
    assert gds.ok and gds.detail.startswith("PageRank on gds: BOOKRAG_PPR_ENGINE=gds; ")
    assert "document projection(s) held" in gds.detail
    assert report["embedder"]["ok"] and "384 dimensions" in report["embedder"]["detail"]
    assert report["reranker"]["ok"] and "fusion" in report["reranker"]["detail"]
    assert not report["llm"]["ok"] and "LLM-free" in report["llm"]["detail"]  # nothing configured in this test
    assert not report["vlm"]["ok"] and report["vlm"]["detail"]
    assert report["ocr"]["ok"] and report["ocr"]["detail"].startswith("tesseract ")  # `make ocr` installs it
    # a configured LLM that does not answer fails the doctor at once (an OCR language missing does not)
    dead = run_cli(settings, "doctor", "--json", BOOKRAG_OCR_LANGUAGE="xyz", BOOKRAG_LLM_PROVIDER="openai",
                   OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    assert dead.returncode == 1, dead.stdout
    report = json.loads(dead.stdout)
    assert not report["llm"]["ok"] and "at http://127.0.0.1:9/v1 is not reachable" in report["llm"]["detail"]
    assert not report["ocr"]["ok"] and "no traineddata for xyz" in report["ocr"]["detail"]


@pytest.mark.local_model
def test_doctor_checks_a_configured_llm(settings: Settings, neo4j_server) -> None:
    proc = run_cli(settings, "doctor", "--json", BOOKRAG_LLM_PROVIDER="local")
    report = json.loads(proc.stdout)
    assert report["llm"]["ok"], report["llm"]
    assert report["llm"]["detail"].startswith("llama.cpp qwen2.5-coder-0.5b")


def test_errors_are_one_line_and_exit_1(settings: Settings, tmp_path) -> None:
    proc = run_cli(settings.replace(neo4j_instance="never-started"), "neo4j", "init")
    assert proc.returncode == 1
    assert "error:" in proc.stderr and "bookrag neo4j start" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_bench_models_runs(settings: Settings, tmp_path) -> None:
    text = tmp_path / "text.md"
    text.write_text("Neo4j stores graphs. " * 200)
    proc = run_cli(settings, "bench", "models", "--text", str(text), "--passages", "16", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["embedder"]["passages"] == 16 and report["embedder"]["passages_per_s"] > 0
    assert report["reranker"]["passages_per_s"] > 0
    assert report["llm"] == {"skipped": "no LLM configured"}
