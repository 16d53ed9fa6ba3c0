"""``bookrag mcp`` driven line by line, as an MCP client's stdio transport drives it (JSON-RPC, one message a line),
for what the SDK's client hides: a malformed line, the seconds one call takes. And a TCP relay to Neo4j that can
stop listening, so a test can take the server away from a running ``bookrag mcp`` without stopping Neo4j."""

from __future__ import annotations

import json
import os
import queue
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

BOOKRAG = str(Path(sys.executable).parent / "bookrag")
START = 120.0  # seconds the subprocess may take to answer initialize (a cold start on a busy 2-core machine)
REPLY = 15.0  # seconds a later reply may take, unless the call says otherwise
TOOLS = {"list_documents", "table_of_contents", "retrieve", "ask", "read_cypher", "get_schema"}


def closed_port() -> int:
    """A local port where nothing listens (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class StdioPeer:
    """The client's end of ``bookrag mcp``: JSON-RPC lines out, replies read on a thread (so a missing reply is a
    timeout, never a hang)."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def send_line(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text.encode() + b"\n")
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_line(json.dumps(message))

    def receive(self, timeout: float = REPLY) -> dict[str, Any]:
        try:
            return json.loads(self.lines.get(timeout=timeout))
        except queue.Empty:
            raise AssertionError(f"no reply within {timeout} s") from None

    def initialize(self) -> dict[str, Any]:
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}})
        reply = self.receive(START)
        assert reply["id"] == 1 and reply["result"]["serverInfo"]["name"] == "bookrag", reply
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return reply

    def call(self, call_id: int, tool: str, arguments: dict[str, Any], timeout: float = REPLY) -> dict[str, Any]:
        """The ``tools/call`` result (``isError``, ``content``, ``structuredContent``)."""
        self.send({"jsonrpc": "2.0", "id": call_id, "method": "tools/call",
                   "params": {"name": tool, "arguments": arguments}})
        reply = self.receive(timeout)
        assert reply["id"] == call_id and "result" in reply, reply
        return reply["result"]


def text_of(result: dict[str, Any]) -> str:
    return " ".join(c.get("text", "") for c in result["content"])


@contextmanager
def bookrag_mcp(uri: str, username: str = "neo4j", password: str = "unused", database: str = "neo4j",
                **extra_env: str) -> Iterator[StdioPeer]:
    """``bookrag mcp --no-llm`` on the server at ``uri``, initialized."""
    env = {**os.environ, "NEO4J_URI": uri, "NEO4J_USERNAME": username, "NEO4J_PASSWORD": password,
           "NEO4J_DATABASE": database, "BOOKRAG_LLM_PROVIDER": "none", "BOOKRAG_VLM_PROVIDER": "none", **extra_env}
    process = subprocess.Popen([BOOKRAG, "mcp", "--no-llm"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, env=env)
    try:
        peer = StdioPeer(process)
        peer.initialize()
        yield peer
    finally:
        if process.stdin is not None:
            process.stdin.close()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class Relay:
    """A TCP relay on a local port to ``host:port`` (Neo4j's Bolt), on threads; :meth:`close` stops listening and
    cuts every connection: then nothing listens at :attr:`port`, as when the server went down."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            server = socket.create_connection(self.target)
            self.sockets += [client, server]
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        with suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        for sock in (source, sink):
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        with suppress(OSError):  # wakes the accept blocked on another thread (close alone leaves it listening)
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        for sock in self.sockets:
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
