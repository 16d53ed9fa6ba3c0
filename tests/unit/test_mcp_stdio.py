"""``bookrag mcp`` as an MCP client starts it, a subprocess speaking JSON-RPC on stdin/stdout, with nothing
listening at ``NEO4J_URI`` (no server needed): a line that is not JSON gets a JSON-RPC parse error (-32700), JSON
that is no JSON-RPC message an invalid-request error (-32600), and the server keeps serving; a tool call while
Neo4j is down comes back as a one-line tool error within seconds. A server that goes down under a running
``bookrag mcp``: tests/integration/test_mcp.py."""

from __future__ import annotations

import time

from ..helpers.mcp_stdio import TOOLS, bookrag_mcp, closed_port, text_of


def test_a_malformed_line_gets_a_json_rpc_parse_error_and_the_server_keeps_serving() -> None:
    with bookrag_mcp(f"bolt://127.0.0.1:{closed_port()}") as server:
        server.send_line('{"jsonrpc": "2.0", "id": 2, "method": "tools/list"')  # the closing brace lost
        parse = server.receive()
        assert parse["jsonrpc"] == "2.0" and parse["id"] is None, parse
        assert parse["error"]["code"] == -32700 and parse["error"]["message"].startswith("Parse error"), parse
        server.send_line("")  # a blank line: skipped, no reply
        server.send_line("not json at all")
        assert server.receive()["error"]["code"] == -32700
        server.send({"jsonrpc": "2.0", "id": 3, "method": 42})  # JSON, but no JSON-RPC request
        invalid = server.receive()
        assert invalid["id"] == 3 and invalid["error"]["code"] == -32600, invalid
        server.send({"jsonrpc": "2.0", "id": 4, "method": "tools/list"})  # still serving
        listed = server.receive()
        assert listed["id"] == 4 and {t["name"] for t in listed["result"]["tools"]} == TOOLS, listed


def test_a_tool_call_with_nothing_listening_fails_within_seconds_with_one_line() -> None:
    with bookrag_mcp(f"bolt://127.0.0.1:{closed_port()}") as server:
        for call in (2, 3):  # the first call and a later one
            started = time.perf_counter()
            result = server.call(call, "list_documents", {}, timeout=60)
            seconds = time.perf_counter() - started
            text = text_of(result)
            assert result["isError"] is True and "\n" not in text and "Traceback" not in text, text
            assert "Neo4jUnavailableError" in text and "not reachable" in text, text
            assert seconds < 5, f"call {call}: {seconds:.1f} s: {text}"
