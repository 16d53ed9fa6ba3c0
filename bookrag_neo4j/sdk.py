"""The Python SDK: index documents and ask questions, async first with a sync facade.

    from bookrag_neo4j import BookRAG

    rag = BookRAG.from_env()                      # settings from the environment (and .env)
    rag.index("AMAZON_2017_10K.pdf")              # tree + embeddings + knowledge graph
    answer = rag.ask("What were Amazon's net sales in 2017?", doc="AMAZON_2017_10K.pdf")
    print(answer.text)
    for c in answer.citations:
        print(c.label())                          # document, section path, pages
    evidence = rag.retrieve("...", doc=["a.pdf", "b.pdf"])   # ranked evidence, no synthesis
    rows = rag.run_cypher("MATCH (d:Document) RETURN d.name AS name")   # your own Cypher, read-only
    edges = rag.evidence_graph(answer)            # the answer's evidence subgraph, to draw

    async with BookRAG.from_env() as rag:         # the async twins: aindex, aask, aretrieve
        answer = await rag.aask("...")

``doc`` is one document (key, key prefix or file name), several, or ``None`` for the whole library.
``use_llm=False`` runs the LLM-free mode whatever is configured. The sync methods work in Jupyter too (inside
a running event loop they run on a worker thread); there ``await rag.aask(...)`` works as well.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .browse import answer_trace_params
from .config import Settings
from .graph.client import USER_QUERY_TIMEOUT, GraphClient
from .index.library import find_document
from .index.pipeline import Indexer, IndexReport
from .llm.factory import Models
from .retrieval.agent import RetrievalAgent
from .retrieval.evidence import Answer, Evidence
from .retrieval.replies import QueryCategory
from .server import connection_info

Docs = str | Sequence[str] | None


class BookRAG:
    """Index and ask over one Neo4j database (a library of documents)."""

    def __init__(self, settings: Settings | None = None, *, models: Models | None = None, use_llm: bool = True) -> None:
        self.settings = settings or Settings()
        self._models = models
        self.use_llm = use_llm
        self._graph: GraphClient | None = None

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
        if self._graph is not None:
            await self._graph.close()
            self._graph = None

    async def _client(self) -> GraphClient:
        if self._graph is None:
            self._graph = GraphClient(connection_info(self.settings))
        return self._graph

    async def aindex(self, path: str | Path, **kwargs: Any) -> IndexReport:
        """Index a PDF: see :meth:`bookrag_neo4j.index.pipeline.Indexer.index` for the options."""
        indexer = Indexer(await self._client(), self.settings, self.models, use_llm=self.use_llm)
        return await indexer.index(Path(path), **kwargs)

    async def aretrieve(self, question: str, doc: Docs = None, *, category: QueryCategory | None = None) -> Evidence:
        """Ranked evidence for a question, with the plan and the trace; no answer synthesis. ``category``
        ("single-hop", "multi-hop", "global") skips the classification."""
        graph = await self._client()
        return await self._agent(graph).retrieve(question, await self._doc_keys(graph, doc), category=category)

    async def aask(self, question: str, doc: Docs = None, *, category: QueryCategory | None = None) -> Answer:
        """The answer with citations (the ranked evidence itself when no LLM is configured)."""
        graph = await self._client()
        return await self._agent(graph).ask(question, await self._doc_keys(graph, doc), category=category)

    async def arun_cypher(self, query: str, params: dict[str, Any] | None = None, *,
                          timeout: float = USER_QUERY_TIMEOUT) -> list[dict[str, Any]]:
        """Run Cypher you (or your users) wrote, read-only: refused unless the server plans it as a read
        query (:class:`~bookrag_neo4j.errors.QueryRefusedError`), then run with read routing and a timeout in
        seconds. Rows as dicts::

            rag.run_cypher("MATCH (d:Document) RETURN d.name AS name, d.pages AS pages")
            rag.run_cypher("MATCH (e:Entity {name: $name}) RETURN count(*) AS n", {"name": "lm"})
        """
        return await (await self._client()).run_user_query(query, params, timeout=timeout)

    async def aevidence_graph(self, answer: Answer | Evidence, *, limit: int = 300) -> list[dict[str, Any]]:
        """An answer's evidence as a small graph to draw: one dict an edge (``source``, ``source_kind``,
        ``source_caption``, ``type``, ``target``, ``target_kind``, ``target_caption``) linking the evidence
        blocks to their sections, to the question's linked entities and to the entities related to those::

            edges = rag.evidence_graph(rag.ask("What does lm fit?"))
            g = networkx.DiGraph((e["source"], e["target"]) for e in edges)
        """
        params = answer_trace_params(answer.model_dump(mode="json"))
        return await (await self._client()).read("retrieval/evidence_graph", **params, limit=limit)

    # --- sync facade (also inside a running event loop, e.g. Jupyter: then on a worker thread) ---
    def index(self, path: str | Path, **kwargs: Any) -> IndexReport:
        return self._run(self.aindex(path, **kwargs))

    def retrieve(self, question: str, doc: Docs = None, **kwargs: Any) -> Evidence:
        return self._run(self.aretrieve(question, doc, **kwargs))

    def ask(self, question: str, doc: Docs = None, **kwargs: Any) -> Answer:
        return self._run(self.aask(question, doc, **kwargs))

    def run_cypher(self, query: str, params: dict[str, Any] | None = None, **kwargs: Any) -> list[dict[str, Any]]:
        return self._run(self.arun_cypher(query, params, **kwargs))

    def evidence_graph(self, answer: Answer | Evidence, **kwargs: Any) -> list[dict[str, Any]]:
        return self._run(self.aevidence_graph(answer, **kwargs))

    # --- internals ---
    def _run(self, work: Any) -> Any:
        async def go() -> Any:
            try:
                return await work
            finally:
                await self.aclose()  # the driver belongs to this event loop

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(go())
        with ThreadPoolExecutor(max_workers=1) as worker:  # a loop is running here (Jupyter): use a private one
            return worker.submit(asyncio.run, go()).result()

    def _agent(self, graph: GraphClient) -> RetrievalAgent:
        return RetrievalAgent(graph, self.settings, self.models, use_llm=self.use_llm)

    @staticmethod
    async def _doc_keys(graph: GraphClient, doc: Docs) -> list[str] | None:
        if doc is None:
            return None
        names = [doc] if isinstance(doc, str) else list(doc)
        return [(await find_document(graph, name))["key"] for name in names]
