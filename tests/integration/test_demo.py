"""``bookrag demo`` (what ``make demo`` runs, there on R-intro) against the test server, offline, on R-data (41
pages against 113, the same code): indexed, one question of each category classified as such and answered with
citations, the answers written as JSON, and the Browser links printed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bookrag_neo4j.db.analytics import open_gds
from bookrag_neo4j.db.gds import DOCUMENT_PREFIX, GRAPH_NAME_PREFIX
from bookrag_neo4j.server import connection_info

from ..helpers.cli import run_cli
from ..helpers.links import browser_editor_lines
from ..helpers.pdfs import R_DATA, need
from ..helpers.timeouts import HANG, LONG_TEST

# Both index R-data (tree, embeddings and graph) unless it is indexed already: a minute on a busy 2-core
# machine. Their limits catch a hang, not a slow machine; the subprocess's (HANG) comes first.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(LONG_TEST)]


async def test_demo_answers_three_kinds_of_question_with_citations(db, settings, tmp_path: Path) -> None:
    result = run_cli(settings, "demo", str(need(R_DATA)), "--out", str(tmp_path), timeout=HANG)
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout
    for expected in ("single-hop", "multi-hop", "global"):
        assert f"planner: {expected} (classified by heuristic)" in out
    assert "answer (no LLM: counted in the index):" in out  # the global question is a COUNT
    assert re.search(r"^indexing \d+\.\d s \((indexed|unchanged|replaced)\), 3 answers \d+\.\d s$", out, re.MULTILINE)
    answers = [json.loads((tmp_path / f"answer-{i}.json").read_text()) for i in (1, 2, 3)]
    for answer in answers:
        assert answer["citations"] and all(c["document"] == R_DATA.name and c["page_start"] >= 1
                                           for c in answer["citations"])
    (tables,) = await db.run("MATCH (d:Document {name: $n}) MATCH (t:Table {doc_key: d.key}) RETURN count(t) AS n",
                                {"n": R_DATA.name})
    assert answers[2]["text"].strip() == str(tables["n"]) and tables["n"] > 0
    toc_link = next(line.split()[-1] for line in out.splitlines() if line.startswith("The table of contents:"))
    assert browser_editor_lines(toc_link)[0].startswith(f'WITH "{R_DATA.name}" AS doc\n')
    assert f"bookrag browse --answer-trace {tmp_path / 'answer-1.json'} --open" in out
    assert "bookrag serve" in out and "http://127.0.0.1:8000/" in out  # the web app, beside the Browser links


def test_quickstart_notebook_runs(settings, neo4j_server, tmp_path: Path, monkeypatch) -> None:
    """``notebooks/quickstart.ipynb`` executed cell by cell in a real kernel (nbclient), offline, against the
    test server: any cell that raises fails the test; the three pictures are written; the GDS projection of the
    entity graph (``rag.entity_graph``) is dropped after."""
    import nbformat
    from nbclient import NotebookClient

    for name, value in {"BOOKRAG_NEO4J_INSTANCE": settings.neo4j.instance,
                        "BOOKRAG_NEO4J_BOLT_PORT": str(settings.neo4j.bolt_port),
                        "BOOKRAG_NEO4J_HTTP_PORT": str(settings.neo4j.http_port),
                        "BOOKRAG_NEO4J_RUNTIME": settings.neo4j.runtime, "BOOKRAG_LLM_PROVIDER": "none",
                        "BOOKRAG_VLM_PROVIDER": "none", "BOOKRAG_QUICKSTART_PDF": str(need(R_DATA)),
                        "BOOKRAG_QUICKSTART_OUT": str(tmp_path), "MPLBACKEND": "Agg"}.items():
        monkeypatch.setenv(name, value)  # the kernel inherits this environment
    notebook = nbformat.read(Path(__file__).resolve().parents[2] / "notebooks" / "quickstart.ipynb", as_version=4)
    for cell in notebook.cells:  # the committed copy holds outputs of an earlier run: none of them may count
        if cell.cell_type == "code":
            cell.outputs = []
    NotebookClient(notebook, timeout=HANG, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    printed = "".join(o.get("text", "") for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs)
    for category in ("[single-hop]", "[multi-hop]", "[global]"):
        assert category in printed
    assert f"localhost:{settings.neo4j.http_port}/browser/?cmd=edit" in printed
    assert f"Graph(name={GRAPH_NAME_PREFIX}" in printed  # the projection, printed in its block
    with open_gds(connection_info(settings)) as gds:
        assert not [g.graph_name for g in gds.graph.list() if g.graph_name.startswith(GRAPH_NAME_PREFIX)
                    and not g.graph_name.startswith(DOCUMENT_PREFIX)]  # Graph_Reasoning's are kept on purpose
    tables = [o["data"]["text/plain"] for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs
              if o.get("output_type") == "execute_result"]
    assert any("most_central" in t and "communityId" in t for t in tables)  # the communities DataFrame
    assert any("most_central" in t and "chapter" in t and "top_pagerank" in t for t in tables)  # central per chapter
    for picture in ("index_statistics.png", "evidence_graph.png", "entity_communities.png"):
        data = (tmp_path / picture).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
