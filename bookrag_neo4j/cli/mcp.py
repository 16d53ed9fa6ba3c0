"""``bookrag mcp``: the MCP server (Model Context Protocol) over stdio, for an MCP client to start.

    bookrag mcp                          # the library of the default managed instance (or NEO4J_URI's server)
    bookrag mcp --no-llm --instance t    # LLM-free, another managed instance

stdout is the protocol: the command prints nothing else there (logs go to stderr); a line on stdin that is not
JSON-RPC is answered with a JSON-RPC error (-32700 for malformed JSON) and the server keeps serving.
"""

from __future__ import annotations

from typing import Annotated

import typer

from . import lean_imports
from .common import InstanceOpt, library


def mcp(
    no_llm: Annotated[bool, typer.Option("--no-llm", help="LLM-free: plan and select without an LLM; ask "
                                                           "answers with the ranked evidence.")] = False,
    instance: InstanceOpt = None,
) -> None:
    """Serve the library to an MCP client over stdio: list_documents, table_of_contents, retrieve, ask and
    read_cypher (read-only)."""
    lean_imports.install(pandas_for_neo4j=False)  # its tools send the driver plain values only
    from ..mcp_server import serve_stdio

    serve_stdio(library(instance, use_llm=not no_llm))


COMMANDS = {"mcp": mcp}
