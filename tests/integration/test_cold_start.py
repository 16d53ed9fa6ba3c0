"""A cold question: a new ``bookrag retrieve --no-llm`` process imports neither PyTorch nor pandas (its question
embedded in NumPy, spaCy without torch, the driver without pandas) and returns the evidence of a warm retrieval in
this process."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from bookrag_neo4j import BookRAG

from ..helpers.cli import cli_env
from ..helpers.timeouts import HANG, LONG_TEST

pytestmark = pytest.mark.timeout(LONG_TEST)  # the session's ACL paper is indexed by the first test that needs it

QUESTION = "Which model performs best in the closed-book setting?"
NOT_ON_THE_QUESTION_PATH = ("torch", "pandas", "pyarrow", "sentence_transformers", "transformers", "sklearn",
                            "graphdatascience")


# What the console script runs (``bookrag_neo4j.cli:main``), then which of those modules the process imported.
COLD = """
    import contextlib, io, json, sys
    from bookrag_neo4j.cli import main
    sys.argv = ["bookrag", *{args!r}]
    out, code = io.StringIO(), 0
    with contextlib.redirect_stdout(out):
        try:
            main()
        except SystemExit as exit:
            code = exit.code or 0
    print(json.dumps({{"code": code, "loaded": [m for m in {modules!r} if sys.modules.get(m) is not None],
                       "stdout": out.getvalue()}}))
"""


def cold(settings, *args: str) -> dict:
    code = textwrap.dedent(COLD.format(args=list(args), modules=NOT_ON_THE_QUESTION_PATH))
    done = subprocess.run([sys.executable, "-c", code], env=cli_env(settings), capture_output=True,
                          text=True, timeout=HANG, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_cold_retrieve_imports_no_torch_and_returns_the_warm_evidence(settings, acl_paper: str) -> None:
    run = cold(settings, "retrieve", QUESTION, "--doc", acl_paper, "--no-llm", "--json")
    assert run["code"] == 0 and run["loaded"] == []
    nodes = json.loads(run["stdout"])["evidence"]
    warm = BookRAG(settings, use_llm=False).retrieve(QUESTION, doc=acl_paper)  # the question in NumPy too
    assert nodes and [(n["rank"], n["key"]) for n in nodes] == [(n.rank, n.key) for n in warm.nodes]
    assert [n["graph_score"] for n in nodes] == pytest.approx([round(n.graph_score, 6) for n in warm.nodes], abs=2e-6)
    assert [n["text_score"] for n in nodes] == pytest.approx([round(n.text_score, 6) for n in warm.nodes], abs=2e-6)


def test_the_library_commands_import_neither_torch_nor_pandas(settings, acl_paper: str) -> None:
    for args in (["docs", "list", "--json"], ["toc", acl_paper, "--json"], ["stats", acl_paper, "--json"],
                 ["query", "MATCH (d:Document) RETURN count(d) AS n", "--json"]):
        run = cold(settings, *args)
        assert run["code"] == 0 and run["loaded"] == [] and json.loads(run["stdout"]), args
