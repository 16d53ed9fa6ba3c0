"""The official MCP Inspector's CLI (npm ``@modelcontextprotocol/inspector``, installed by ``make mcp-inspector``)
driving ``bookrag mcp`` over stdio: a client other than the Python SDK's. Each call starts the CLI, which starts
the server, sends one request and prints the result as JSON. Used by ``tests/integration/test_mcp_inspector.py``
and by hand:

    .venv/bin/python -m tests.helpers.mcp_inspector --method tools/call --tool-name retrieve --tool-arg doc=a.pdf question=q
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bookrag_neo4j.db.client import ConnectionInfo

from .timeouts import HANG

INSPECTOR_DIR = Path.home() / ".cache" / "bookrag-neo4j" / "mcp-inspector"
BOOKRAG = str(Path(sys.executable).parent / "bookrag")
TOOL_ERROR = 5  # the CLI's exit status when the tool answered isError: true


def inspector_path() -> Path:
    """The CLI that ``make mcp-inspector`` installs (node runs it)."""
    path = INSPECTOR_DIR / "node_modules" / ".bin" / "mcp-inspector"
    if not path.exists() or not shutil.which("node"):
        raise RuntimeError(f"the MCP Inspector (in {INSPECTOR_DIR}) or node is missing: `make mcp-inspector` "
                           "installs it with npm (`make test` does)")
    return path


def server_env(conn: ConnectionInfo | None = None) -> dict[str, str]:
    """What ``bookrag mcp`` needs: the CLI hands a stdio server only HOME, PATH and a few others of its own
    environment, so the rest goes as ``-e`` pairs, as in a user's client configuration (LLM-free here)."""
    env = {k: v for k, v in os.environ.items() if k.startswith(("BOOKRAG_", "NEO4J_", "HF_"))}
    if conn is not None:
        env |= {"NEO4J_URI": conn.uri, "NEO4J_USERNAME": conn.username, "NEO4J_PASSWORD": conn.password,
                "NEO4J_DATABASE": conn.database}
    return env | {"BOOKRAG_LLM_PROVIDER": "none", "BOOKRAG_VLM_PROVIDER": "none"}


def _command(env: dict[str, str]) -> list[str]:
    return [str(inspector_path()), "--cli", *(arg for name, value in env.items() for arg in ("-e", f"{name}={value}"))]


@dataclass
class InspectorRun:
    returncode: int
    result: dict[str, Any] | None  # what the CLI printed on stdout, as JSON (None: nothing or not JSON)
    stdout: str
    stderr: str

    @property
    def text(self) -> str:
        """A tools/call result's text content, joined."""
        return " ".join(c.get("text", "") for c in (self.result or {}).get("content", []))


def inspect(env: dict[str, str], method: str, tool: str | None = None, args: dict[str, str] | None = None,
            options: tuple[str, ...] = (), timeout: float = HANG) -> InspectorRun:
    """One inspector CLI run against ``bookrag mcp``: ``method`` (tools/list, tools/call), a tool and its
    arguments as the CLI's ``key=value`` pairs (it converts a value by the tool's schema), other CLI options
    (``--strict``: tools/list exits 6 on a schema that is not portable across clients)."""
    command = [*_command(env), "--method", method, *options]
    if tool is not None:
        command += ["--tool-name", tool]
    if args:
        command += ["--tool-arg", *(f"{name}={value}" for name, value in args.items())]
    command += ["--", BOOKRAG, "mcp"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)  # a hang only
    try:
        result = json.loads(done.stdout)
    except ValueError:
        result = None
    return InspectorRun(done.returncode, result, done.stdout, done.stderr)


if __name__ == "__main__":
    raise SystemExit(subprocess.run([*_command(server_env()), *sys.argv[1:], "--", BOOKRAG, "mcp"]).returncode)
