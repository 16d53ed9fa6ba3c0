"""The stdio transport of ``bookrag mcp``: the official SDK's ``stdio_server`` with one thing added. The SDK drops a
line it cannot read, so a client that sent malformed JSON waits for an answer that never comes; here such a line
is answered with a JSON-RPC error response, ``id`` null (the id could not be read), and the server keeps serving:

    {"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error: ..."}}

-32700 for a line that is not JSON, -32600 (invalid request) for JSON that is not a JSON-RPC message (with its
``id`` when it has a usable one). A blank line is skipped.

    await serve_answering_stdio(build_server(rag))      # what `bookrag mcp` runs
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
from pydantic import ValidationError

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectReceiveStream
    from mcp.server.mcpserver import MCPServer
    from mcp.shared.message import SessionMessage
    from mcp_types import JSONRPCError

log = logging.getLogger(__name__)


def error_response(exc: Exception) -> JSONRPCError | None:
    """The JSON-RPC error that answers a line the SDK could not read (``exc``: its validation error), or None for
    a blank line."""
    from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError

    errors = exc.errors() if isinstance(exc, ValidationError) else []
    first: Mapping[str, Any] = errors[0] if errors else {}
    if first.get("type") == "json_invalid":
        if not str(first.get("input", "")).strip():
            return None
        reason = str(first.get("ctx", {}).get("error", "")) or "invalid JSON"
        return JSONRPCError(jsonrpc="2.0", id=None,
                            error=ErrorData(code=PARSE_ERROR, message=f"Parse error: the line is not JSON ({reason})"))
    if not errors:  # not a validation error: nothing said what the line was
        return JSONRPCError(jsonrpc="2.0", id=None,
                            error=ErrorData(code=PARSE_ERROR, message=f"Parse error: {type(exc).__name__}: {exc}"))
    return JSONRPCError(jsonrpc="2.0", id=_request_id(errors), error=ErrorData(
        code=INVALID_REQUEST, message="Invalid Request: the line is JSON but not a JSON-RPC 2.0 message"))


def _request_id(errors: list[Any]) -> str | int | None:
    """The ``id`` of the message the errors are about (some errors carry the whole message), if usable."""
    message: dict[str, Any] = next((e["input"] for e in errors if isinstance(e.get("input"), dict)), {})
    found = message.get("id")
    return found if isinstance(found, str | int) and not isinstance(found, bool) else None


@asynccontextmanager
async def answering_stdio() -> AsyncIterator[tuple[MemoryObjectReceiveStream[SessionMessage | Exception], Any]]:
    """The SDK's stdio streams, the read side relayed: a line it could not read is answered on the write side
    (:func:`error_response`) and never reaches the server."""
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage

    async with stdio_server() as (read_stream, write_stream):
        send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def relay() -> None:
            async with send:
                async for item in read_stream:
                    if not isinstance(item, Exception):
                        await send.send(item)
                        continue
                    error = error_response(item)
                    if error is not None:
                        log.info("answered an unreadable line with JSON-RPC error %s", error.error.code)
                        await write_stream.send(SessionMessage(error))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(relay)
            try:
                yield receive, write_stream
            finally:
                tasks.cancel_scope.cancel()


async def serve_answering_stdio(server: MCPServer) -> None:
    """Serve ``server`` over stdio as its ``run_stdio_async`` does, on :func:`answering_stdio`'s streams."""
    lowlevel = server._lowlevel_server  # what run_stdio_async runs (mcp 2.x); a stdio test covers it
    async with answering_stdio() as (read, write):
        await lowlevel.run(read, write, lowlevel.create_initialization_options())
