"""The Python SDK: index documents and ask questions, async first with a sync facade.

    from bookrag_neo4j import BookRAG

    rag = BookRAG.from_env()                      # settings from the environment (and .env)
    rag.index("annual-report-2017.pdf")              # tree + embeddings + knowledge graph
    answer = rag.ask("What were net sales in 2017?", doc="annual-report-2017.pdf")
    for c in answer.citations:
        print(c.label)                          # document, section path, pages
    evidence = rag.retrieve("...", doc=["a.pdf", "b.pdf"], method="bm25")   # ranked evidence, any of rag.methods()
    rows = rag.run_cypher("MATCH (d:Document) RETURN d.name AS name")   # your own Cypher, read-only
    with rag.entity_graph("annual-report-2017.pdf") as G:    # its entity graph in GDS, dropped after the block
        communities = rag.gds.leiden.stream(G)            # rag.gds: the graphdatascience client (DataFrames)
    async with BookRAG.from_env() as rag:         # the async twins: aindex, aask, aretrieve, adocuments...
        answer = await rag.aask("...")

``doc`` is one document (key, key prefix or file name), several, or ``None`` for the whole library;
``use_llm=False`` runs LLM-free. The sync methods work in Jupyter too (inside a running event loop they run on a
worker thread). Indexing (``index``, ``index_many``, ``build_graph`` ...): :mod:`.sdk_index`. The library: ``documents``,
``toc``, ``stats``, ``bi``, ``evaluate``, ``delete``.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import warnings
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import EllipsisType
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from .browse import EvidenceEdge, answer_trace_params
from .config import Settings
from .db.client import USER_QUERY_MAX_ROWS, USER_QUERY_TIMEOUT, Neo4jClient
from .db.reply_cap import UserRows
from .errors import QuestionError
from .eval.benchmark import Benchmark, load_benchmark
from .eval.scored import EvalRow
from .index.on_demand import OnDemandLayers
from .library.bi import BiTable, bi_queries, bi_table
from .library.cards import DocumentCard
from .library.catalogue import Deletion, TocEntry, delete_document, table_of_contents
from .library.documents import Document, find_document, list_documents
from .library.stats import DocumentStats, document_stats
from .llm.factory import Models
from .methods import METHODS, Method, Retriever
from .retrieval.plan import Plan
from .retrieval.planner_replies import QueryCategory
from .retrieval.results import Answer, Evidence, Turn
from .sdk_gds import GdsAccess
from .sdk_index import ErMode, IndexAccess
from .server import connection_info, instance_settings

if TYPE_CHECKING:  # the indexing pipeline and the evaluation load on first use: a question needs neither
    from graphdatascience import GraphDataScience

    from .db.schema import IndexInfo
    from .index.pipeline import Indexer
    from .ops.superrag import CypherRun

Docs = str | Sequence[str] | None
T = TypeVar("T")
P = ParamSpec("P")


def sync_twin(method: Callable[Concatenate[Any, P], Awaitable[T]]) -> Callable[Concatenate[Any, P], T]:
    """The blocking twin of an async method (``aask`` -> ``ask``): the same signature and docstring, for
    ``help()`` and editors, run to its end by :meth:`BookRAG._run` (on a worker thread inside a running loop)."""

    @functools.wraps(method)
    def twin(self: BookRAG, *args: P.args, **kwargs: P.kwargs) -> T:
        return self._run(method(self, *args, **kwargs))

    twin.__name__ = method.__name__.removeprefix("a")
    twin.__qualname__ = f"BookRAG.{twin.__name__}"
    twin.__doc__ = f"{inspect.getdoc(method)}\n\n(The blocking twin of :meth:`{method.__name__}`.)"
    return twin


def _top(top_k: int | None) -> int | None:
    """``top_k`` checked before any work (None: every evidence item)."""
    if top_k is not None and top_k < 1:
        raise QuestionError(f"top_k must be at least 1, got {top_k}")
    return top_k


class BookRAG(IndexAccess, GdsAccess):
    """Index and ask over one Neo4j database (a library of documents)."""

    def __init__(self, settings: Settings | None = None, *, models: Models | None = None, use_llm: bool = True) -> None:
        self.settings = instance_settings(settings or Settings())  # a managed instance's recorded ports
        self._models = models
        self.use_llm = use_llm
        self._db: Neo4jClient | None = None
        self._gds: GraphDataScience | None = None
        self._indexers: dict[ErMode, Indexer] = {}  # kept: each holds its loaded extractor

    @classmethod
    def from_env(cls, **kwargs: Any) -> BookRAG:
        """Settings from the environment (``BOOKRAG_*``, ``NEO4J_*``, ``OPENAI_*``) and a ``.env`` file."""
        return cls(Settings(), **kwargs)

    @property
    def models(self) -> Models:
        if self._models is None:
            self._models = Models.from_settings(self.settings)
        return self._models

    # --- async API ---
    async def __aenter__(self) -> BookRAG:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the driver and the GDS client (:attr:`gds`)."""
        await self._close_driver()
        if (gds := self._gds) is not None:
            self._gds = None
            await asyncio.to_thread(gds.close)

    def close(self) -> None:
        """The sync twin of :meth:`aclose` (each sync method closes the driver; this closes :attr:`gds` too)."""
        self._run(self.aclose())

    async def _close_driver(self) -> None:
        self._indexers.clear()
        if self._db is not None:
            await self._db.close()
            self._db = None

    async def _client(self) -> Neo4jClient:
        if self._db is None:
            self._db = Neo4jClient(connection_info(self.settings))
        return self._db

    async def aretrieve(self, question: str, doc: Docs = None, *, method: str = "bookrag", top_k: int | None = None,
                        category: QueryCategory | None = None, plan: Plan | None = None,
                        history: Sequence[Turn] = ()) -> Evidence:
        """Ranked evidence for a question, with the plan and the trace; no answer synthesis. ``doc``: one document
        (key, key prefix or file name), several, or None for the whole library. ``method``: one of
        :meth:`methods`; ``top_k``: at most this many evidence items, best first (default: all the method
        returns); ``category`` ("single-hop", "multi-hop", "global") skips the classification; ``plan`` runs a
        plan (e.g. an edited ``evidence.plan``) instead of planning; ``history``: a conversation's earlier turns
        (:class:`Turn`), when the question is a follow-up: with an LLM it is read with them, and with no document
        named it reads the documents the last turn cited."""
        top_k, db = _top(top_k), await self._client()
        found = await self.retriever(db).retrieve(question, await self._doc_keys(db, doc), method=method,
                                                      category=category, plan=plan, history=history)
        return found if top_k is None else found.model_copy(update={"evidence": found.evidence[:top_k]})

    async def aask(self, question: str, doc: Docs = None, *, method: str = "bookrag", top_k: int | None = None,
                   category: QueryCategory | None = None, plan: Plan | None = None,
                   history: Sequence[Turn] = ()) -> Answer:
        """The answer with its citations (document, section path, pages) and the evidence behind it; without an
        LLM the answer is the ranked evidence itself (``extractive``). Options as :meth:`aretrieve`; ``top_k``
        bounds the evidence returned (the answer is written from all of it). A follow-up::

            first = await rag.aask("What was Best Buy's revenue in fiscal 2023?")
            await rag.aask("And its net income?", history=[first.turn()])"""
        top_k, db = _top(top_k), await self._client()
        answer = await self.retriever(db).ask(question, await self._doc_keys(db, doc), method=method,
                                                  category=category, plan=plan, history=history)
        return answer if top_k is None else answer.model_copy(update={"evidence": answer.evidence[:top_k]})

    async def acypher(self, question: str, doc: Docs = None) -> CypherRun:
        """text2Cypher alone: the read-only query written for the question (the LLM over the schema, else an
        intent template) and the rows it returned through the read-only gate."""
        db = await self._client()
        return await self.retriever(db).cypher(question, await self._doc_keys(db, doc))

    @staticmethod
    def methods() -> list[Method]:
        """The registered methods (name, description): BookRAG, its ablations, the baselines."""
        return list(METHODS.values())

    async def arun_cypher(self, query: str, params: dict[str, Any] | None = None, *,
                          timeout: float = USER_QUERY_TIMEOUT, max_rows: int | None = USER_QUERY_MAX_ROWS,
                          max_bytes: int | None | EllipsisType = ..., truncate: bool = False,
                          vectors: bool = True) -> UserRows:
        """Run Cypher you (or your users) wrote, read-only: refused unless the server plans it as a read
        query (:class:`~bookrag_neo4j.errors.QueryRefusedError`), then run with read routing and a timeout in
        seconds. More than ``max_rows`` rows, or rows whose JSON passes ``max_bytes`` (default
        ``settings.retrieval.cypher_max_bytes``; None: no cap), is a :class:`~bookrag_neo4j.errors.UserQueryError`;
        with ``truncate`` the rows that fit instead, the one that passed the byte cap shortened, and the list's
        ``cut`` saying so (None when whole); ``vectors=False`` replaces embeddings with a short note. Rows as dicts::

            rag.run_cypher("MATCH (d:Document) RETURN d.name AS name, d.pages AS pages")
            rag.run_cypher("MATCH (e:Entity {name: $name}) RETURN count(*) AS n", {"name": "lm"})
            rag.run_cypher("MATCH (b:Block) RETURN b.text AS text", max_bytes=10_000, truncate=True).cut
        """
        cap = self.settings.retrieval.cypher_max_bytes if max_bytes is ... else max_bytes
        rows = await (await self._client()).run_user_query(query, params, timeout=timeout, max_rows=max_rows,
                                                            max_bytes=cap, truncate=truncate, vectors=vectors)
        return rows if isinstance(rows, UserRows) else UserRows(rows)

    async def aevidence_graph(self, answer: Answer | Evidence, *, limit: int = 300) -> list[EvidenceEdge]:
        """An answer's evidence as a small graph to draw: its edges (``source``, ``source_kind``,
        ``source_caption``, ``type``, ``target``, ``target_kind``, ``target_caption``) linking the evidence
        blocks to their sections, to the question's linked entities and to the entities related to those::

            edges = rag.evidence_graph(rag.ask("What does lm fit?"))
            g = networkx.DiGraph((e.source, e.target) for e in edges)
        """
        params = answer_trace_params(answer.model_dump(mode="json"))
        return await (await self._client()).read_as(EvidenceEdge, "retrieval/evidence_graph", **params, limit=limit)

    # --- the library: its documents, schema, BI queries and evaluation (async, then the sync twins) ---
    async def adocuments(self) -> list[Document]:
        """Every indexed document, by file name."""
        return await list_documents(await self._client())

    async def adocument(self, doc: str) -> Document:
        """The document with this key, key prefix (6+ characters) or file name (the newest, if several)."""
        return await find_document(await self._client(), doc)

    async def aset_card(self, doc: str, **fields: str | None) -> DocumentCard:
        """Correct what a document is: its card's ``title``, ``issuer``, ``kind``, ``period`` (the years it names
        follow), ``date`` or ``summary``. Kept when the document is indexed again; routing reads it at once."""
        from .index.card_reader import store_card
        found = await self.adocument(doc)
        card = (found.card or DocumentCard()).edit(**fields)
        await store_card(await self._client(), found.key, card, self.models.embedder)
        return card

    async def adelete(self, doc: str) -> Deletion:
        """Delete a document's index and images: its ``key``, ``name`` and how many nodes were ``deleted``."""
        found = await self.adocument(doc)
        deleted = await delete_document(await self._client(), found.key, self.settings.image_dir)
        return Deletion(key=found.key, name=found.name, deleted=deleted)

    async def astats(self, doc: str, *, with_graph: bool = True) -> DocumentStats:
        """A document's counts (pages, sections, blocks, its layers') and its knowledge graph's statistics
        (``graph``); ``partial`` is true while a layer's build has not completed (``incomplete`` names them): its
        counts are not final."""
        d = await self.adocument(doc)
        stats = await document_stats(await self._client(), d.key, with_graph=with_graph)
        return stats.model_copy(update={"status": d.status, "error": d.error, "partial": bool(d.partial),
                                        "incomplete": d.partial})

    async def atoc(self, doc: str) -> list[TocEntry]:
        """A document's table of contents: each section's title, level and first page, in reading order."""
        return await table_of_contents(await self._client(), (await self.adocument(doc)).key)

    async def aapply_schema(self, *, rebuild_fulltext: bool = False) -> list[IndexInfo]:
        """Apply the BookIndex schema (constraints, vector and full-text indexes); the indexes, all ONLINE.
        ``rebuild_fulltext``: build the full-text indexes anew, so BM25 forgets nodes deleted by re-indexing."""
        from .db import schema
        from .llm.factory import index_dimensions
        db = await self._client()
        if rebuild_fulltext:
            await schema.rebuild_fulltext(db)
        return await schema.apply_schema(db, dimensions=index_dimensions(self.settings))

    @staticmethod
    def bi_queries() -> list[str]:
        """The names of the BI queries (``cypher/bi/``): flat, read-only tables."""
        return bi_queries()

    async def abi(self, name: str, *, doc: str | None = None, limit: int = 20) -> BiTable:
        """A BI query's table (one document's rows by file name, or the library's): its ``columns`` and ``rows``,
        ``records()`` as dicts; QueryNotFoundError for a name that is not a BI query."""
        return await bi_table(await self._client(), name, doc=doc, limit=limit)

    async def aevaluate(self, benchmark: Benchmark | str | Path, **options: Any) -> list[EvalRow]:
        """One scored :class:`~bookrag_neo4j.eval.rows.EvalRow` per (question, method) of a benchmark (a folder or a
        loaded one): see
        :func:`bookrag_neo4j.eval.runner.evaluate` for the options (methods, mode, only_indexed, judge, progress)."""
        from .eval.runner import evaluate
        bench = benchmark if isinstance(benchmark, Benchmark) else load_benchmark(Path(benchmark))
        return await evaluate(await self._client(), self.settings, self.models, bench, use_llm=self.use_llm,
                              **options)

    async def aclient(self) -> Neo4jClient:
        """This library's Neo4j client (connected on first use, closed by :meth:`aclose`), for your own work."""
        return await self._client()

    async def agraph(self) -> Neo4jClient:
        """:meth:`aclient`'s former name: still works, and warns."""
        warnings.warn("BookRAG.agraph() is now aclient()", DeprecationWarning, stacklevel=2)
        return await self._client()

    def run(self, work: Awaitable[T]) -> T:
        """Run a coroutine of this object's async methods to its end, then close the driver, as each sync
        method does (several calls on one connection)."""
        return self._run(work)

    # --- the sync facade: each async method's blocking twin, with its signature and docstring ---
    index = sync_twin(IndexAccess.aindex)
    index_many = sync_twin(IndexAccess.aindex_many)
    retrieve = sync_twin(aretrieve)
    ask = sync_twin(aask)
    cypher = sync_twin(acypher)
    run_cypher = sync_twin(arun_cypher)
    evidence_graph = sync_twin(aevidence_graph)
    build_graph = sync_twin(IndexAccess.abuild_graph)
    build_layout = sync_twin(IndexAccess.abuild_layout)
    build_content_graph = sync_twin(IndexAccess.abuild_content_graph)
    documents = sync_twin(adocuments)
    document = sync_twin(adocument)
    set_card = sync_twin(aset_card)
    read_card = sync_twin(IndexAccess.aread_card)
    delete = sync_twin(adelete)
    stats = sync_twin(astats)
    toc = sync_twin(atoc)
    apply_schema = sync_twin(aapply_schema)
    bi = sync_twin(abi)
    evaluate = sync_twin(aevaluate)

    # --- internals ---
    def _run(self, work: Awaitable[T]) -> T:
        async def go() -> T:
            try:
                return await work
            finally:
                await self._close_driver()  # the driver belongs to this event loop (rag.gds does not)

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(go())
        with ThreadPoolExecutor(max_workers=1) as worker:  # a loop is running here (Jupyter): use a private one
            return worker.submit(asyncio.run, go()).result()

    def retriever(self, db: Neo4jClient) -> Retriever:
        """The retriever :meth:`aask` and :meth:`aretrieve` use, on ``graph`` (for benchmarks that time it)."""
        return Retriever(db, self.settings, self.models, use_llm=self.use_llm,
                         layers=OnDemandLayers(db, self.settings))

    @staticmethod
    async def _doc_keys(db: Neo4jClient, doc: Docs) -> list[str] | None:
        if doc is None:
            return None
        names = [doc] if isinstance(doc, str) else list(doc)
        return [(await find_document(db, name)).key for name in names]
