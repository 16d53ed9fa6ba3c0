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
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any, ParamSpec, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from .db.reply_cap import UserRows
from .errors import BookRAGError, PlanError
from .library.cards import DocumentCard
from .retrieval.results import Citation, EvidenceNode, by_document

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.tools import Tool

    from .library.documents import Document
    from .sdk import BookRAG

log = logging.getLogger(__name__)

MAX_ROWS = 1000  # the most rows read_cypher returns in one call
WARNINGS = ("What may make the result incomplete: e.g. a document in scope whose build was interrupted (until "
            "`bookrag index` runs on it again), or one deleted while the question ran.")
P = ParamSpec("P")
T = TypeVar("T")

INSTRUCTIONS = """BookRAG over a library of long PDFs indexed in Neo4j. Start with list_documents: `docs`, on \
every tool that takes documents, is one of its file names or keys, or a list of them. Read one document's \
table_of_contents to see its structure, then retrieve (cited evidence) or ask (an answer with citations) over \
`docs`, or over the whole library without it. Cite the evidence by its citation label (document, section path, \
pages). read_cypher runs your own read-only Cypher over the graph (Document, Section, Block, Entity nodes). A tool \
refuses an argument it does not declare; its error names the accepted ones."""


# --- what the tools return ---
class DocumentInfo(BaseModel):
    """An indexed document and how far each of its layers is built (None: never built)."""

    key: str
    name: str
    title: str = ""
    pages: int | None = None
    indexed_at: str | None = None
    status: str = Field(description="complete, or partial while any layer's build has not completed")
    tree: str
    embeddings: str | None = None
    knowledge_graph: str | None = None
    layout: str | None = None
    content_graph: str | None = None
    card: DocumentCard | None = Field(None, description="What it is: title, issuer, kind, period, date")

    @classmethod
    def of(cls, doc: Document) -> DocumentInfo:
        def state(layer: Any) -> str | None:
            return None if layer is None else str(layer.value)
        return cls(key=doc.key, name=doc.name, title=doc.title, pages=doc.pages, indexed_at=doc.indexed_at,
                   status=doc.status, tree=doc.tree.value, embeddings=state(doc.embeddings), card=doc.card,
                   knowledge_graph=state(doc.graph), layout=state(doc.layout), content_graph=state(doc.g2))


class DocumentList(BaseModel):
    documents: list[DocumentInfo]


class TocEntry(BaseModel):
    title: str
    level: int
    page: int | None = None
    key: str


class TableOfContents(BaseModel):
    document: str
    key: str
    sections: list[TocEntry]


class Source(BaseModel):
    """Where a piece of evidence is; ``label`` is the citation to quote (document, section path, pages)."""

    label: str
    document: str
    doc_key: str
    node_key: str
    section_path: str = ""
    pages: list[int] = Field(default_factory=list)

    @classmethod
    def of(cls, citation: Citation, pages: list[int] | None = None) -> Source:
        if pages is None:
            pages = list(range(citation.page_start, max(citation.page_start, citation.page_end) + 1)) \
                if citation.page_start else []
        return cls(label=citation.label(), document=citation.document, doc_key=citation.doc_key,
                   node_key=citation.node_key, section_path=citation.section_path, pages=pages)


class EvidenceItem(BaseModel):
    """One piece of evidence, best first, with its citation."""

    rank: int
    kind: str
    title: str = ""
    text: str
    graph_score: float
    text_score: float
    citation: Source

    @classmethod
    def of(cls, node: EvidenceNode) -> EvidenceItem:
        return cls(rank=node.rank, kind=node.kind, title=node.title, text=node.text, graph_score=node.graph_score,
                   text_score=node.text_score, citation=Source.of(node.citation, node.pages))


class DocumentPart(BaseModel):
    """One document's part of the result: the answer's citations from it (ask) and the ranks of its evidence."""

    document: str
    doc_key: str
    citations: list[Source] = Field(default_factory=list, description="ask: its citations, in the answer's order.")
    evidence: list[int] = Field(default_factory=list, description="The ranks of its items in `evidence`.")


def document_parts(evidence: list[EvidenceItem], citations: Sequence[Source] = ()) -> list[DocumentPart]:
    """By document, in the order each is first cited, then first in ``evidence``."""
    return [DocumentPart(document=s.document, doc_key=s.doc_key, citations=[c for c in citations if c.doc_key == s.doc_key],
                         evidence=[e.rank for e in evidence if e.citation.doc_key == s.doc_key])
            for s in by_document([*citations, *(e.citation for e in evidence)])]


class RetrieveResult(BaseModel):
    question: str
    method: str
    category: str | None = None
    count: int | None = Field(None, description="Global COUNT questions: the number of matching nodes.")
    evidence: list[EvidenceItem]
    more_evidence: int = Field(0, description="Evidence items beyond `limit`, left out.")
    pages: dict[str, list[int]] = Field(description="The evidence's pages by document.")
    documents: list[DocumentPart] = Field(default_factory=list, description="The citations and evidence by document.")
    warnings: list[str] = Field(default_factory=list, description=WARNINGS)


class AskResult(BaseModel):
    question: str
    method: str
    category: str | None = None
    answer: str
    extractive: bool = Field(description="True when no LLM wrote the answer: it is the ranked evidence itself.")
    count: int | None = None
    citations: list[Source]
    evidence: list[EvidenceItem]
    more_evidence: int = 0
    documents: list[DocumentPart] = Field(default_factory=list, description="The citations and evidence by document.")
    warnings: list[str] = Field(default_factory=list, description=WARNINGS)


class CypherResult(BaseModel):
    columns: list[str]
    rows: list[dict[str, Any]]
    row_count: int
    truncated: bool = Field(description="True when rows are left out or values cut: the query had more rows than "
                                        "max_rows, or they passed max_bytes (note says which).")
    max_rows: int
    max_bytes: int = Field(description="The most bytes the rows may take as JSON (BOOKRAG_CYPHER_MAX_BYTES).")
    note: str | None = Field(None, description="How the rows were cut, when truncated.")

    @classmethod
    def of(cls, rows: UserRows, max_rows: int, max_bytes: int) -> CypherResult:
        """``rows``, read with ``max_rows + 1`` rows allowed, as at most ``max_rows`` (one more says there were more)."""
        byte_cut = rows.cut_at is not None and rows.cut_at <= max_rows
        more = len(rows) > max_rows or (rows.cut_at is not None and rows.cut_at > max_rows)
        shown = _jsonable(rows[:max_rows])
        note = rows.cut if byte_cut else (f"the query had more than {max_rows} rows; the first {max_rows} are "
                                          "shown (add LIMIT or ORDER BY, or pass a larger max_rows)") if more else None
        return cls(columns=list(shown[0]) if shown else [], rows=shown, row_count=len(shown),
                   truncated=byte_cut or more, max_rows=max_rows, max_bytes=max_bytes, note=note)


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
Limit = Annotated[int, Field(ge=1, le=100, description="The most evidence items to return, best first.")]


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
            return await super().run(arguments, context, convert_result=convert_result)

    return StrictTool


def strict_tool(fn: Callable[..., Any], **kwargs: Any) -> Tool:
    """``fn`` as a tool whose arguments model forbids extra names and whose input schema says so
    (``additionalProperties: false``); a call with an unknown argument is refused before validation."""
    tool = _strict_tool_class().from_function(fn, **kwargs)
    lenient = tool.fn_metadata.arg_model
    forbidding = type(lenient.__name__, (lenient,), {"__module__": lenient.__module__,
                                                     "model_config": ConfigDict(extra="forbid")})
    tool.fn_metadata.arg_model = forbidding
    tool.parameters = forbidding.model_json_schema(by_alias=True)
    return tool


def _jsonable(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows as JSON values: temporal and spatial values become their strings."""
    return json.loads(json.dumps(rows, default=str))


def build_server(rag: BookRAG) -> MCPServer:
    """The MCP server with the five tools over ``rag`` (not started: see :func:`serve_stdio`)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    from . import __version__

    methods = {m.name: m.description for m in rag.methods()}
    max_bytes = rag.settings.retrieval.cypher_max_bytes
    listing = "\n".join(f"- {name}: {description}" for name, description in methods.items())
    reads = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    # a method may build a layer it reads on first use (e.g. the layout layer): additive, never destructive
    asks = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

    def check_method(method: str) -> None:
        if method not in methods:
            raise PlanError(f"unknown method {method!r}; known: {', '.join(methods)}")

    async def reach() -> None:  # once the arguments pass: Neo4j gone down fails the call in seconds, not 30 s
        await (await rag.agraph()).reach()

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
                               sections=[TocEntry.model_validate(row) for row in await rag.atoc(found.key)])

    @_tool_errors
    async def retrieve(question: Question, docs: Docs = None, method: MethodName = "bookrag",
                       limit: Limit = 10) -> RetrieveResult:
        check_method(method)
        await reach()
        evidence = await rag.aretrieve(question, docs, method=method)
        items = [EvidenceItem.of(n) for n in evidence.nodes[:limit]]
        return RetrieveResult(question=question, method=method,
                              category=evidence.plan.category if evidence.plan else None, count=evidence.count,
                              evidence=items, more_evidence=max(0, len(evidence.nodes) - limit),
                              pages=evidence.pages, documents=document_parts(items), warnings=evidence.warnings)

    @_tool_errors
    async def ask(question: Question, docs: Docs = None, method: MethodName = "bookrag",
                  limit: Limit = 10) -> AskResult:
        check_method(method)
        await reach()
        answer = await rag.aask(question, docs, method=method)
        pages = {n.key: n.pages for n in answer.evidence}
        citations = [Source.of(c, pages.get(c.node_key)) for c in answer.citations]
        items = [EvidenceItem.of(n) for n in answer.evidence[:limit]]
        return AskResult(question=question, method=method, category=answer.plan.category if answer.plan else None,
                         answer=answer.text, extractive=answer.extractive, count=answer.count, citations=citations,
                         evidence=items, more_evidence=max(0, len(answer.evidence) - limit),
                         documents=document_parts(items, citations), warnings=answer.warnings)

    @_tool_errors
    async def read_cypher(
        query: Annotated[str, Field(min_length=1, description="A read-only Cypher query ($name parameters).")],
        params: Annotated[dict[str, Any] | None, Field(description="The query's parameters.")] = None,
        max_rows: Annotated[int, Field(ge=1, le=MAX_ROWS, description="The most rows to return.")] = 100,
    ) -> CypherResult:
        await reach()
        rows = await rag.arun_cypher(query, params, max_rows=max_rows + 1, max_bytes=max_bytes, truncate=True)
        return CypherResult.of(rows, max_rows, max_bytes)

    tools = [
        strict_tool(list_documents, annotations=reads),
        strict_tool(table_of_contents, annotations=reads),
        strict_tool(retrieve, annotations=asks, description=(
            "Ranked evidence for a question (no answer synthesis), best first, over `docs` (one document or a "
            "list) or the whole library; each item carries its citation (document, section path, pages) and its "
            f"scores. Methods:\n{listing}")),
        strict_tool(ask, annotations=asks, description=(
            "Answer a question about `docs` (one document or a list) or the whole library, with citations "
            "(document, section path, pages) and the evidence behind them; without an LLM the answer is the "
            f"ranked evidence itself (extractive). Methods:\n{listing}")),
        strict_tool(read_cypher, annotations=reads, description=(
            "Run your own Cypher, read-only: a query that writes, calls a procedure outside the allow-list, loads "
            "files or names another database is refused before it runs. At most max_rows rows, and at most "
            f"{max_bytes:,} bytes of them as JSON: past either, truncated is true and note says what was left out "
            "or cut (a long value is cut, marked '… [N more characters]'). A 30-second timeout.")),
    ]
    return MCPServer("bookrag", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING", tools=tools)


def serve_stdio(rag: BookRAG) -> None:
    """Serve ``rag``'s tools over stdin/stdout until the client closes them; the driver closes at the end. A line
    that is not JSON-RPC is answered with a JSON-RPC error (:mod:`bookrag_neo4j.mcp_stdio`)."""
    import anyio

    from .mcp_stdio import serve_answering_stdio

    server = build_server(rag)

    async def run() -> None:
        async with rag:
            await rag.agraph()  # one driver for every call, made before concurrent calls could race to make it
            await serve_answering_stdio(server)

    anyio.run(run)
