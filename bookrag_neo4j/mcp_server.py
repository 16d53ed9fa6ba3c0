"""An MCP server (Model Context Protocol, the official ``mcp`` SDK) over the SDK facade, for MCP clients and agents.

    bookrag mcp                        # stdio: what an MCP client starts (see the README for its configuration)
    bookrag mcp --no-llm               # LLM-free: plan without an LLM, ask answers with the ranked evidence

    from bookrag_neo4j.mcp_server import build_server, serve_stdio
    server = build_server(BookRAG.from_env())          # an mcp.server.mcpserver.MCPServer: add tools, run it
    serve_stdio(BookRAG.from_env(use_llm=False))       # what `bookrag mcp` runs

Tools, each with an output schema and every evidence item with its citation: ``list_documents``, ``table_of_contents``,
``retrieve`` (ranked evidence, no synthesis), ``ask`` (the answer with its citations; without an LLM the ranked evidence,
``extractive`` true), both with the SDK's ``warnings`` (e.g. a document whose build was interrupted) and ``documents``
(citations and evidence by document), and ``read_cypher`` (through the read-only gate, at most ``max_rows`` rows and
``cypher_max_bytes`` bytes of them, cut rows and values said in ``note``). ``docs`` names one document or a list. Every
input schema has ``additionalProperties: false`` and an undeclared argument is refused by name: the SDK would drop it
silently, and a client that guessed ``doc`` for ``docs`` would get a confident answer over the wrong documents. Expected
failures (a refused write, an unknown document, Neo4j unreachable) come back as tool errors; each call reaches Neo4j first
without the driver's retries, so a server gone down fails it in seconds. stdout carries the protocol alone (logging goes to
stderr); a line that is not JSON-RPC is answered with a JSON-RPC error (:mod:`bookrag_neo4j.mcp_stdio`). See docs/mcp.md.
"""

from __future__ import annotations

import difflib
import functools
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any, ParamSpec, TypeVar, cast

from pydantic import ConfigDict, Field, ValidationError

from .api_models import (
    AskResult,
    CypherResult,
    DocumentInfo,
    DocumentList,
    RetrieveResult,
    TableOfContents,
    ask_result,
    retrieve_result,
)
from .db.schema_guide import GraphSchema, read_schema
from .errors import BookRAGError, PlanError, validation_line
from .mcp_pages import add_pages_and_prompts

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.tools import Tool
    from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase

    from .methods.method_registry import Method
    from .sdk import BookRAG

log = logging.getLogger(__name__)

MAX_ROWS = 1000  # the most rows read_cypher returns in one call
P = ParamSpec("P")
T = TypeVar("T")

INSTRUCTIONS = """BookRAG over a library of long PDFs indexed in Neo4j. Start with list_documents: `docs`, on \
every tool that takes documents, is one of its file names or keys, or a list of them. Read one document's \
table_of_contents to see its structure, then retrieve (cited evidence) or ask (an answer with citations) over \
`docs`, or over the whole library without it. Cite the evidence by its citation label (document, section path, \
pages); each page is the resource bookrag://documents/{key}/pages/{number} (a PNG). read_cypher runs your own \
read-only Cypher over the graph; get_schema describes it (labels, relationships, properties, indexes). A tool \
refuses an argument it does not declare; its error names the accepted ones."""


# --- the tools' parameters ---
Question = Annotated[str, Field(min_length=1, description="The question, in natural language.")]
DocName = Annotated[str, Field(min_length=1)]
Docs = Annotated[DocName | Annotated[list[DocName], Field(min_length=1)] | None, Field(
    description="The documents: one file name or key, or a list of them (list_documents names them); omit for "
                "the whole library.")]
OneDoc = Annotated[DocName | Annotated[list[DocName], Field(min_length=1)], Field(
    description="One document: its file name or key (list_documents names them); a list of one is accepted, "
                "several are refused.")]
MethodName = Annotated[str, Field(description="The retrieval method (default bookrag); the tool's description lists them.")]
TopK = Annotated[int, Field(ge=1, le=100, description="At most this many evidence items, best first.")]


def _tool_errors(fn: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    """The package's errors become tool errors carrying their message (anything else, the SDK's generic one)."""
    from mcp.server.mcpserver.exceptions import ToolError

    @functools.wraps(fn)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await fn(*args, **kwargs)
        except BookRAGError as exc:
            log.info("tool %s: %s: %s", fn.__name__, type(exc).__name__, exc)
            raise ToolError(f"{type(exc).__name__}: {exc}") from exc

    return wrapper


def _one_document(tool: str, docs: str | list[str]) -> str:
    """The single document a one-document tool reads; several are refused, naming them."""
    from mcp.server.mcpserver.exceptions import ToolError

    if isinstance(docs, str):
        return docs
    if len(docs) > 1:
        raise ToolError(f"{tool} reads one document; docs names {len(docs)} ({', '.join(docs)}): call it once "
                        "for each")
    return docs[0]


def unknown_arguments(tool: str, given: list[str], schema: dict[str, Any]) -> str | None:
    """The refusal of a call whose arguments ``given`` include names that ``schema`` does not declare (the
    closest declared name suggested), or None when every name is declared."""
    accepted = list(schema.get("properties", {}))
    unknown = [name for name in given if name not in accepted]
    if not unknown:
        return None
    hints = [f"{name!r} (did you mean {close[0]!r}?)" if (close := difflib.get_close_matches(name, accepted, 1, 0.5))
             else repr(name) for name in unknown]
    required = set(schema.get("required", []))
    takes = ", ".join(f"{name} (required)" if name in required else name for name in accepted) or "no arguments"
    return f"unknown argument{'s' if len(unknown) > 1 else ''} {', '.join(hints)}; {tool} accepts {takes}"


def method_listing(methods: Sequence[Method]) -> str:
    """The methods as a tool description names them: the three to use, then the baselines; the ablations only by
    name, as being for evaluation."""
    def names(role: str) -> list[Method]:
        return [m for m in methods if m.role == role]

    return ("Methods (bookrag the default):\n" + "\n".join(f"- {m.name}: {m.description}" for m in names("method"))
            + "\nBaselines, to compare against:\n" + "\n".join(f"- {m.name}: {m.description}" for m in names("baseline"))
            + "\nAblations, for evaluation only (each is a method with a part left out): "
            + ", ".join(m.name for m in names("ablation")) + ".")


@functools.cache
def _strict_tool_class() -> type[Tool]:
    """A ``Tool`` that refuses an argument it does not declare, with a message naming the accepted ones (the SDK
    validates the declared arguments and drops the others)."""
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.server.mcpserver.tools import Tool

    class StrictTool(Tool):
        async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
            refusal = unknown_arguments(self.name, list(arguments), self.parameters)
            if refusal:
                log.info("tool %s: %s", self.name, refusal)
                raise ToolError(f"Error executing tool {self.name}: {refusal}")
            try:
                return await super().run(arguments, context, convert_result=convert_result)
            except ToolError as exc:
                if isinstance(exc.__cause__, ValidationError):
                    why = validation_line(exc.__cause__, whole="arguments", show_input=True)
                    raise ToolError(f"Error executing tool {self.name}: invalid arguments: {why}") from exc.__cause__
                raise

    return StrictTool


def strict_tool(fn: Callable[..., Any], **kwargs: Any) -> Tool:
    """``fn`` as a tool whose arguments model forbids extra names and whose input schema says so
    (``additionalProperties: false``); a call with an unknown argument is refused before validation."""
    tool = _strict_tool_class().from_function(fn, **kwargs)
    lenient = tool.fn_metadata.arg_model
    forbidding = cast("type[ArgModelBase]", type(lenient.__name__, (lenient,), {
        "__module__": lenient.__module__, "model_config": ConfigDict(extra="forbid")}))
    tool.fn_metadata.arg_model = forbidding
    tool.parameters = forbidding.model_json_schema(by_alias=True)
    return tool


def build_server(rag: BookRAG) -> MCPServer:
    """The MCP server with the five tools over ``rag`` (not started: see :func:`serve_stdio`)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    from . import __version__

    methods = {m.name: m for m in rag.methods()}
    max_bytes = rag.settings.retrieval.cypher_max_bytes
    listing = method_listing(rag.methods())
    reads = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    # a method may build a layer it reads on first use (e.g. the layout layer): additive, never destructive
    asks = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

    def check_method(method: str) -> None:
        if method not in methods:
            raise PlanError(f"unknown method {method!r}; known: {', '.join(methods)}")

    async def reach() -> None:  # once the arguments pass: Neo4j gone down fails the call in seconds, not 30 s
        await (await rag.aclient()).reach()

    @_tool_errors
    async def list_documents() -> DocumentList:
        """The indexed documents: key, file name, title, pages, card (issuer, kind, period), each layer's state."""
        await reach()
        return DocumentList(documents=[DocumentInfo.of(d) for d in await rag.adocuments()])

    @_tool_errors
    async def table_of_contents(docs: OneDoc) -> TableOfContents:
        """One document's table of contents: each section's title, level and first page, in reading order."""
        name = _one_document("table_of_contents", docs)
        await reach()
        found = await rag.adocument(name)
        return TableOfContents(document=found.name, key=found.key,
                               sections=await rag.atoc(found.key))

    @_tool_errors
    async def retrieve(question: Question, docs: Docs = None, method: MethodName = "bookrag",
                       top_k: TopK = 10) -> RetrieveResult:
        check_method(method)
        await reach()
        return retrieve_result(await rag.aretrieve(question, docs, method=method), method, top_k)

    @_tool_errors
    async def ask(question: Question, docs: Docs = None, method: MethodName = "bookrag",
                  top_k: TopK = 10) -> AskResult:
        check_method(method)
        await reach()
        return ask_result(await rag.aask(question, docs, method=method), method, top_k)

    @_tool_errors
    async def read_cypher(
        query: Annotated[str, Field(min_length=1, description="A read-only Cypher query ($name parameters).")],
        params: Annotated[dict[str, Any] | None, Field(description="The query's parameters.")] = None,
        max_rows: Annotated[int, Field(ge=1, le=MAX_ROWS, description="The most rows to return.")] = 100,
    ) -> CypherResult:
        await reach()
        rows = await rag.arun_cypher(query, params, max_rows=max_rows + 1, max_bytes=max_bytes, truncate=True,
                                     vectors=False)
        return CypherResult.of(rows, max_rows, max_bytes)

    @_tool_errors
    async def get_schema() -> GraphSchema:
        await reach()
        return await read_schema(await rag.aclient())

    tools = [
        strict_tool(list_documents, annotations=reads),
        strict_tool(table_of_contents, annotations=reads),
        strict_tool(retrieve, annotations=asks, description=(
            "Ranked evidence for a question (no answer synthesis), best first, over `docs` (one document or a "
            "list) or the whole library; each item carries its citation (document, section path, pages) and its "
            f"scores. {listing}")),
        strict_tool(ask, annotations=asks, description=(
            "Answer a question about `docs` (one document or a list) or the whole library, with citations "
            "(document, section path, pages) and the evidence behind them; without an LLM the answer is the "
            f"ranked evidence itself (extractive). {listing}")),
        strict_tool(read_cypher, annotations=reads, description=(
            "Run your own Cypher, read-only: a query that writes, calls a procedure outside the allow-list, loads "
            "files or names another database is refused before it runs. At most max_rows rows, and at most "
            f"{max_bytes:,} bytes of them as JSON: past either, truncated is true and note says what was left out "
            "or cut (a long value is cut, marked '… [N more characters]'); embeddings are left out (a short note "
            "stands for each). A 30-second timeout. get_schema says what there is to match.")),
        strict_tool(get_schema, annotations=reads, description=(
            "The graph's schema, to write read_cypher queries: each node label (what it means in the index, its "
            "layer, how many nodes, its properties, which of them are embeddings), each relationship type (its "
            "meaning, its patterns, how many) and each index (type, labels, properties).")),
    ]
    server = MCPServer("bookrag", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING", tools=tools)
    add_pages_and_prompts(server, rag)
    return server


def serve_stdio(rag: BookRAG) -> None:
    """Serve ``rag``'s tools over stdin/stdout until the client closes them; the driver closes at the end. A line
    that is not JSON-RPC is answered with a JSON-RPC error (:mod:`bookrag_neo4j.mcp_stdio`)."""
    import anyio

    from .mcp_stdio import serve_answering_stdio

    server = build_server(rag)

    async def run() -> None:
        async with rag:
            await rag.aclient()  # one driver for every call, made before concurrent calls could race to make it
            await serve_answering_stdio(server)

    anyio.run(run)
