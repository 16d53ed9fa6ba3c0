"""``bookrag mcp`` through a client other than the Python SDK's: the official MCP Inspector CLI (npm, installed by
``make mcp-inspector``, which ``make test`` runs) starts it over stdio against the test server, on the session's
ACL paper (LLM-free). Every tool's input schema says ``additionalProperties: false`` and names the documents
``docs``; a call with a name the tool does not declare (``doc`` for ``docs``) is refused with a message naming it
and the accepted ones, where it used to be dropped and answered over the whole library; the right name works, one
document or a list of them; several documents to table_of_contents are refused. The schema tool answers, and a
node read whole comes without its embedding."""

from __future__ import annotations

import json
import time

import pytest

from bookrag_neo4j.db.client import ConnectionInfo

from ..helpers.mcp_inspector import TOOL_ERROR, InspectorRun, inspect, inspector_path, server_env
from ..helpers.pdfs import ACL_PAPER
from ..helpers.timeouts import LONG_TEST

pytestmark = pytest.mark.timeout(LONG_TEST)

QUESTION = "Which model performs best in the closed-book setting?"


def _ok(run: InspectorRun) -> dict:
    assert run.returncode == 0 and run.result is not None, (run.returncode, run.stdout, run.stderr)
    assert not run.result.get("isError"), run.text
    return run.result.get("structuredContent", run.result)


def _refused(run: InspectorRun) -> str:
    assert run.returncode == TOOL_ERROR and run.result is not None, (run.returncode, run.stdout, run.stderr)
    assert run.result["isError"] is True and "Traceback" not in run.text, run.result
    return run.text


def test_inspector_cli_sees_strict_schemas_and_refuses_unknown_arguments(conn: ConnectionInfo, acl_paper: str
                                                                         ) -> None:
    inspector_path()  # fails with how to install it, rather than skip
    env = server_env(conn)
    started = time.perf_counter()

    listed = inspect(env, "tools/list", options=("--strict",))  # and no schema portability finding
    tools = {t["name"]: t for t in _ok(listed)["tools"]}
    assert not listed.stderr.strip(), listed.stderr
    assert set(tools) == {"list_documents", "table_of_contents", "retrieve", "ask", "read_cypher", "get_schema"}
    for tool in tools.values():
        assert tool["inputSchema"].get("additionalProperties") is False, tool
        assert "doc" not in tool["inputSchema"].get("properties", {}), tool
    assert all("docs" in tools[name]["inputSchema"]["properties"] for name in ("table_of_contents", "retrieve", "ask"))
    assert tools["table_of_contents"]["inputSchema"]["required"] == ["docs"]

    # the name an LLM guesses: refused, naming it, the right one and the accepted ones (never the whole library)
    wrong = _refused(inspect(env, "tools/call", "retrieve", {"question": QUESTION, "doc": ACL_PAPER.name}))
    assert "unknown argument 'doc' (did you mean 'docs'?)" in wrong, wrong
    assert "retrieve accepts question (required), docs, method, top_k" in wrong, wrong

    # the right name: a list of one (the CLI sends the JSON text; the server reads it as the list)
    found = _ok(inspect(env, "tools/call", "retrieve", {"question": QUESTION, "docs": json.dumps([ACL_PAPER.name]),
                                                        "top_k": "3"}))
    assert 1 <= len(found["evidence"]) <= 3, found
    assert {e["citation"]["document"] for e in found["evidence"]} == {ACL_PAPER.name}, found
    assert list(found["pages"]) == [ACL_PAPER.name]

    # table_of_contents takes `docs` too: one document by key; several refused
    toc = _ok(inspect(env, "tools/call", "table_of_contents", {"docs": acl_paper}))
    assert toc["document"] == ACL_PAPER.name and len(toc["sections"]) >= 5, toc
    several = _refused(inspect(env, "tools/call", "table_of_contents",
                               {"docs": json.dumps([ACL_PAPER.name, "other.pdf"])}))
    assert f"table_of_contents reads one document; docs names 2 ({ACL_PAPER.name}, other.pdf)" in several, several

    # the schema tool, and a node read whole: without its embedding, under 5 KB as the Inspector prints it
    schema = _ok(inspect(env, "tools/call", "get_schema", {}))
    assert "Text" in {label["label"] for label in schema["labels"]} and schema["relationships"] and schema["indexes"]
    node = inspect(env, "tools/call", "read_cypher", {"query": "MATCH (t:Text) RETURN t LIMIT 1"})
    assert _ok(node)["rows"][0]["t"]["embedding"] == "<vector of 384 floats, left out>"
    assert len(node.stdout.encode()) < 5000, len(node.stdout.encode())
    print(f"MCP Inspector CLI: 7 runs against bookrag mcp in {time.perf_counter() - started:.1f} s")
