"""``bookrag mcp`` as an MCP client starts it: a subprocess over stdio, driven by the official SDK's client
(``stdio_client`` and ``ClientSession``) against the test server, on the session's ACL paper (LLM-free). One
server process answers every call: the five tools are listed with their schemas (``additionalProperties: false``,
the documents named ``docs`` everywhere), each one runs, evidence and citations carry document, section path and
pages, read_cypher caps rows and refuses a write, and a bad method name, document or argument name is a tool error
with a clear message, never a traceback. The same server through the MCP Inspector CLI:
tests/integration/test_mcp_inspector.py."""

from __future__ import annotations

import base64
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult

from bookrag_neo4j.config import Settings
from bookrag_neo4j.db.client import ConnectionInfo, Neo4jClient
from bookrag_neo4j.llm import Models
from bookrag_neo4j.sdk import BookRAG

from ..helpers.mcp_stdio import TOOLS, Relay, bookrag_mcp, text_of
from ..helpers.partial import INCOMPLETE, interrupted_graph_document
from ..helpers.pdfs import ACL_PAPER
from ..helpers.timeouts import LONG_TEST

pytestmark = pytest.mark.timeout(LONG_TEST)

BOOKRAG = str(Path(sys.executable).parent / "bookrag")
QUESTION = "Which model performs best in the closed-book setting?"
ACME_QUESTION = "Who leads Acme Interrupted?"


def _server(conn: ConnectionInfo) -> StdioServerParameters:
    """``bookrag mcp`` on the test server, as a user's MCP client configuration starts it (NEO4J_* in env)."""
    env = {**os.environ, "NEO4J_URI": conn.uri, "NEO4J_USERNAME": conn.username, "NEO4J_PASSWORD": conn.password,
           "NEO4J_DATABASE": conn.database, "BOOKRAG_LLM_PROVIDER": "none", "BOOKRAG_VLM_PROVIDER": "none"}
    return StdioServerParameters(command=BOOKRAG, args=["mcp"], env=env)


def _ok(result: CallToolResult) -> dict[str, Any]:
    text = " ".join(getattr(c, "text", "") for c in result.content)
    assert not result.is_error, text
    assert result.structured_content is not None, text
    return result.structured_content


def _error(result: CallToolResult) -> str:
    assert result.is_error, result.structured_content
    text = " ".join(getattr(c, "text", "") for c in result.content)
    assert "Traceback" not in text, text
    return text


def _assert_cited(source: dict[str, Any], toc: list[dict[str, Any]]) -> None:
    """A citation names the document, the section path and pages; only the front matter, before the first
    section, belongs to no section."""
    assert source["document"] == ACL_PAPER.name and source["doc_key"] and source["node_key"], source
    assert source["pages"] and all(1 <= p <= 24 for p in source["pages"]), source
    if not source["section_path"]:
        assert max(source["pages"]) <= toc[0]["page"], (source, toc[0])
        assert source["label"].startswith(f"{ACL_PAPER.name}, p"), source
        return
    assert source["section_path"].split(" > ")[0] in {s["title"] for s in toc}, source
    assert source["label"].startswith(f"{ACL_PAPER.name}, {source['section_path']}, p"), source


async def test_mcp_server_over_stdio(conn: ConnectionInfo, acl_paper: str) -> None:
    started = time.perf_counter()
    async with stdio_client(_server(conn)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools) == TOOLS
        assert tools["retrieve"].input_schema["required"] == ["question"]
        assert {"question", "docs", "method", "top_k"} == set(tools["ask"].input_schema["properties"])
        assert tools["read_cypher"].input_schema["properties"]["max_rows"]["maximum"] == 1000
        assert "superrag:" in tools["retrieve"].description  # the methods, listed for the client's model
        assert all(t.output_schema for t in tools.values())
        assert all(t.input_schema["additionalProperties"] is False for t in tools.values())
        assert tools["table_of_contents"].input_schema["required"] == ["docs"]

        # list_documents and table_of_contents
        docs = _ok(await session.call_tool("list_documents", {}))["documents"]
        (doc,) = [d for d in docs if d["key"] == acl_paper]
        assert doc["name"] == ACL_PAPER.name and doc["pages"] == 24 and doc["tree"] == "complete"
        assert doc["layout"] == "complete" and doc["knowledge_graph"] is None  # indexed without its graph
        toc = _ok(await session.call_tool("table_of_contents", {"docs": ACL_PAPER.name}))
        assert toc["key"] == acl_paper and len(toc["sections"]) >= 5
        assert all(s["title"] and s["level"] >= 1 for s in toc["sections"])

        # retrieve: ranked evidence, each item with its citation; top_k cuts the list
        found = _ok(await session.call_tool("retrieve", {"question": QUESTION, "docs": [ACL_PAPER.name],
                                                         "method": "superrag", "top_k": 3}))
        assert found["method"] == "superrag" and 1 <= len(found["evidence"]) <= 3
        assert [e["rank"] for e in found["evidence"]] == sorted(e["rank"] for e in found["evidence"])
        for item in found["evidence"]:
            assert item["text"]
            _assert_cited(item["citation"], toc["sections"])
        assert found["pages"][ACL_PAPER.name]

        # ask (the default method, LLM-free: the answer is the ranked evidence itself), one document by key
        answer = _ok(await session.call_tool("ask", {"question": QUESTION, "docs": acl_paper}))
        assert answer["method"] == "bookrag" and answer["extractive"] and answer["answer"]
        assert answer["citations"] and answer["evidence"]
        for source in answer["citations"]:
            _assert_cited(source, toc["sections"])

        # read_cypher: rows as JSON, a row cap that says it cut, a write refused before it runs
        rows = _ok(await session.call_tool("read_cypher", {
            "query": "MATCH (s:Section {doc_key: $key}) RETURN s.title AS title, s.page_start AS page "
                     "ORDER BY s.order", "params": {"key": acl_paper}, "max_rows": 2}))
        assert rows["columns"] == ["title", "page"] and rows["row_count"] == 2 and rows["truncated"]
        assert [r["title"] for r in rows["rows"]] == [s["title"] for s in toc["sections"][:2]]
        whole = _ok(await session.call_tool("read_cypher", {"query": "UNWIND range(1, 5) AS i RETURN i"}))
        assert whole["row_count"] == 5 and not whole["truncated"] and whole["max_rows"] == 100
        refused = _error(await session.call_tool("read_cypher", {"query": "CREATE (:Intruder {name: 'x'}) RETURN 1"}))
        assert "QueryRefusedError" in refused and "write" in refused.lower(), refused
        assert _ok(await session.call_tool("read_cypher", {"query": "MATCH (x:Intruder) RETURN count(x) AS n"})
                   )["rows"] == [{"n": 0}]
        too_many = _error(await session.call_tool("read_cypher", {"query": "RETURN 1", "max_rows": 5000}))
        assert "max_rows" in too_many and "1000" in too_many, too_many
        # a node returned whole comes without its embedding (27 KB with it): under 5 KB as the client reads it
        text_node = await session.call_tool("read_cypher", {
            "query": "MATCH (t:Text {doc_key: $key}) RETURN t ORDER BY t.order LIMIT 1", "params": {"key": acl_paper}})
        node = _ok(text_node)["rows"][0]["t"]
        assert node["embedding"] == "<vector of 384 floats, left out>" and node["text"], node
        assert len(text_node.model_dump_json()) < 5000

        # get_schema: what there is to match, with its meaning, counts and indexes
        schema = _ok(await session.call_tool("get_schema", {}))
        labels = {label["label"]: label for label in schema["labels"]}
        assert labels["Text"]["layer"] == "tree" and labels["Text"]["nodes"] >= 1 and "text" in labels["Text"]["properties"]
        assert labels["Text"]["vector_properties"] == ["embedding"] and "paragraph" in labels["Text"]["meaning"]
        assert {"Document", "Section", "Passage", "Page"} <= set(labels)
        types = {r["type"]: r for r in schema["relationships"]}
        assert "HAS_CHILD" in types and types["HAS_CHILD"]["patterns"] and types["HAS_CHILD"]["relationships"] >= 1
        vector = {i["name"]: i for i in schema["indexes"]}["tree_node_embedding"]
        assert vector["type"] == "VECTOR" and vector["dimensions"] == 384

        # a citation's page image, as a resource
        uri = answer["citations"][0]["page_image"]
        assert uri == f"bookrag://documents/{acl_paper}/pages/{answer['citations'][0]['pages'][0]}"
        image = (await session.read_resource(uri)).contents[0]
        assert image.mime_type == "image/png" and base64.b64decode(image.blob)[:8] == b"\x89PNG\r\n\x1a\n"
        with pytest.raises(MCPError, match="has no page 999"):
            await session.read_resource(f"bookrag://documents/{acl_paper}/pages/999")

        # bad input: a clear message naming what is known
        bad = _error(await session.call_tool("retrieve", {"question": QUESTION, "method": "no-such-method"}))
        assert "unknown method 'no-such-method'" in bad and "bookrag" in bad and "superrag" in bad, bad
        missing = _error(await session.call_tool("table_of_contents", {"docs": ["no-such.pdf"]}))
        assert "DocumentNotFoundError" in missing and "no-such.pdf" in missing, missing
        # a name the tool does not declare is refused, never dropped (that answered over the whole library)
        guessed = _error(await session.call_tool("retrieve", {"question": QUESTION, "doc": ACL_PAPER.name}))
        assert "unknown argument 'doc' (did you mean 'docs'?); retrieve accepts question (required), docs, " \
               "method, top_k" in guessed, guessed
        several = _error(await session.call_tool("table_of_contents", {"docs": [ACL_PAPER.name, acl_paper]}))
        assert "table_of_contents reads one document; docs names 2" in several, several
    print(f"bookrag mcp: one session, {len(TOOLS)} tools and 13 calls in {time.perf_counter() - started:.1f} s")


async def test_retrieve_and_ask_carry_the_sdks_warnings(conn: ConnectionInfo, settings: Settings,
                                                       offline_models: Models, schema, tmp_path: Path) -> None:
    """Over a document whose graph build was interrupted the SDK warns that it is incomplete; MCP's retrieve and
    ask say the same in their warnings, and a complete document's evidence has none."""
    async with interrupted_graph_document(conn, settings, offline_models, tmp_path) as (key, name):
        sdk = await BookRAG(settings, models=offline_models, use_llm=False).aretrieve(ACME_QUESTION, key,
                                                                                       method="bm25")
        assert any(INCOMPLETE in w for w in sdk.warnings), sdk.warnings
        with bookrag_mcp(conn.uri, conn.username, conn.password, conn.database) as server:
            found = server.call(2, "retrieve", {"question": ACME_QUESTION, "docs": name, "method": "bm25"}, 120)
            answer = server.call(3, "ask", {"question": ACME_QUESTION, "docs": [key], "method": "bm25"}, 120)
            for result in (found, answer):
                assert not result.get("isError") and result["structuredContent"]["evidence"], text_of(result)
                assert result["structuredContent"]["warnings"] == sdk.warnings, result["structuredContent"]
            listed = server.call(4, "list_documents", {})["structuredContent"]["documents"]
            assert {d["key"]: d["status"] for d in listed}[key] == "partial"
            clean = server.call(5, "retrieve", {"question": QUESTION, "method": "bm25", "top_k": 1,
                                                "docs": ACL_PAPER.name}, 120)
            assert clean["structuredContent"]["warnings"] == [], clean["structuredContent"]


def test_neo4j_gone_under_a_running_server_fails_calls_within_seconds(conn: ConnectionInfo) -> None:
    """``bookrag mcp`` reaches Neo4j through a relay, answers, then the relay stops listening (nothing listens at
    the address any more, as when the server went down): each call fails in seconds with one line, where the
    driver's retries made it take 32 s (55.8 s on a busier machine)."""
    host, port = conn.uri.split("://")[1].rsplit(":", 1)
    relay = Relay(host, int(port))
    try:
        with bookrag_mcp(f"bolt://127.0.0.1:{relay.port}", conn.username, conn.password, conn.database) as server:
            assert not server.call(2, "list_documents", {}, 120).get("isError")
            relay.close()
            for call, (tool, arguments) in enumerate((("list_documents", {}), ("read_cypher", {"query": "RETURN 1"}),
                                                      ("retrieve", {"question": QUESTION, "method": "bm25"}),
                                                      ("list_documents", {})), start=3):
                started = time.perf_counter()
                result = server.call(call, tool, arguments, timeout=120)
                seconds = time.perf_counter() - started
                text = text_of(result)
                assert result["isError"] is True and "Neo4jUnavailableError" in text and "not reachable" in text, text
                assert "\n" not in text and "Traceback" not in text, text
                assert seconds < 5, f"{tool}: {seconds:.1f} s"
                print(f"{tool} with Neo4j gone: {seconds:.2f} s")
    finally:
        relay.close()


async def test_read_cypher_caps_the_reply_bytes(conn: ConnectionInfo, db: Neo4jClient) -> None:
    """A 3 MB value and 1,000 rows of 5 KB: each reply stays within BOOKRAG_CYPHER_MAX_BYTES (1,000,000 by
    default) as JSON, long values cut and marked, and truncated and note say so; small replies are untouched."""
    big = "x" * 3_000_000
    await db.run("CREATE (:CapProbe {doc_key: 'test-cap-probe', text: $text})", {"text": big})
    with bookrag_mcp(conn.uri, conn.username, conn.password, conn.database) as server:
        one = server.call(2, "read_cypher", {"query": "MATCH (p:CapProbe {doc_key: 'test-cap-probe'}) "
                                                      "RETURN p.text AS text, size(p.text) AS n"}, 120)
        reply = one["structuredContent"]
        assert not one.get("isError") and reply["truncated"] and reply["max_bytes"] == 1_000_000, text_of(one)[:500]
        assert reply["row_count"] == 1 and reply["rows"][0]["n"] == 3_000_000, reply["note"]
        text = reply["rows"][0]["text"]
        assert 900_000 < len(text) < 1_000_000 and text.endswith(" more characters]"), text[-80:]
        assert "1,000,000-byte cap" in reply["note"] and "row 1" in reply["note"], reply["note"]

        many = server.call(3, "read_cypher", {"query": "MATCH (p:CapProbe {doc_key: 'test-cap-probe'}) "
                                                       "UNWIND range(1, 1000) AS i RETURN i, left(p.text, 5000) AS part",
                                              "max_rows": 1000}, 120)["structuredContent"]
        assert many["truncated"] and 150 < many["row_count"] <= 200, (many["row_count"], many["note"])
        assert [r["i"] for r in many["rows"]] == list(range(1, many["row_count"] + 1))
        assert len(json.dumps(many["rows"], ensure_ascii=False, separators=(",", ":")).encode()) <= 1_000_000
        assert f"at row {many['row_count']}" in many["note"], many["note"]

        small = server.call(4, "read_cypher", {"query": "UNWIND range(1, 5) AS i RETURN i"})["structuredContent"]
        assert not small["truncated"] and small["note"] is None and small["row_count"] == 5
