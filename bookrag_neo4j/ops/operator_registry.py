"""The operator registry and what every operator receives: the run context, its parameters, typed inputs.

    @operator("First_K", family="rank", params=FirstParams)      # FirstParams(BaseModel): k: int = 5
    async def first_k(ctx: RunContext, p: FirstParams, ranking: Ranking) -> Ranking:
        "The first k keys of a ranking."
        return Ranking(keys=ranking.keys[:p.k], graph=ranking.graph, text=ranking.text)

An operator is an async function registered by name, taking the :class:`RunContext`, its parameters (a pydantic model,
checked when the step runs), then its inputs, annotated with :mod:`.values` types: the executor hands each input the
output of the step in ``after`` that has that type (``list[T]``: every such output, in ``after`` order; ``T | None``:
optional). ``model_time()`` marks the seconds an operator spends in model inference, for the trace.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import inspect
import time
import types
import typing
from collections.abc import Awaitable, Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from ..config import Settings
from ..db.client import Neo4jClient
from ..domains import glossary_of
from ..library.documents import Document
from ..llm.chat import ChatModel
from ..llm.factory import Models
from ..retrieval import subtrees
from ..retrieval.document_blocks import DocumentBlocks, block_similarities, document_blocks
from ..retrieval.glossary import Glossary
from ..retrieval.reasoners import MAX_TEXT_CHARS

T = typing.TypeVar("T")
DOCUMENTS_AT_ONCE = 4  # documents whose per-document queries a step runs side by side


class NoParams(BaseModel):
    model_config = ConfigDict(extra="forbid")


@dataclass
class RunContext:
    """What a run of a plan shares: the database, settings, models (``llm`` None: LLM-free) and the scope."""

    db: Neo4jClient
    settings: Settings
    models: Models
    llm: ChatModel | None
    documents: list[Document]
    lead: str | None = None  # the document routed far above the others: its evidence comes first
    schema: str | None = None  # the graph schema text2Cypher reads, read once a run
    _similarities_of: dict[str, asyncio.Future[np.ndarray]] = field(default_factory=dict, repr=False)

    @property
    def scope(self) -> list[str]:
        return [d.key for d in self.documents]

    async def toc(self) -> list[subtrees.SectionRow]:
        """The scope's table of contents, read once a process and tree
        (:func:`~bookrag_neo4j.retrieval.subtrees.table_of_contents`)."""
        return await subtrees.table_of_contents(self.db, self.documents)

    def glossary(self, doc: Document | None = None) -> Glossary:
        """The glossary of the domain packs that apply to ``doc`` by its card's kind (``None``: to any document of
        the scope)."""
        return glossary_of(self.settings.retrieval, [doc] if doc else self.documents)

    async def each_document(self, work: Callable[[Document], Awaitable[T]]) -> list[T]:
        """``work`` on every document of the scope, :data:`DOCUMENTS_AT_ONCE` at a time (their queries run side
        by side in Neo4j), the results in the scope's order."""
        gate = asyncio.Semaphore(DOCUMENTS_AT_ONCE)

        async def one(doc: Document) -> T:
            async with gate:
                return await work(doc)
        return list(await asyncio.gather(*(one(doc) for doc in self.documents)))

    async def blocks(self, doc: Document) -> DocumentBlocks:
        """The content blocks of ``doc`` as the reasoners read them
        (:func:`~bookrag_neo4j.retrieval.document_blocks.document_blocks`)."""
        return await document_blocks(self.db, doc, max_chars=MAX_TEXT_CHARS)

    async def filtered(self, *, kinds: Sequence[str] | None = None, page_from: int | None = None,
                       page_to: int | None = None, within: Collection[str] | None = None) -> list[str]:
        """The scope's blocks of these kinds, pages and selection, by document key, then in reading order
        (:meth:`~bookrag_neo4j.retrieval.document_blocks.DocumentBlocks.filtered`)."""
        held = await self.each_document(self.blocks)
        return [key for _, blocks in sorted(zip(self.scope, held, strict=True), key=lambda pair: pair[0])
                for key in blocks.filtered(kinds=kinds, page_from=page_from, page_to=page_to, within=within)]

    async def similarities(self, doc: Document, vector: list[float]) -> np.ndarray:
        """The similarity of each block of ``doc`` to ``vector``, in its blocks' row order, computed in Neo4j once
        a run (Select_by_Section, Fetch and Text_Reasoning ask for the same question's;
        :func:`~bookrag_neo4j.retrieval.document_blocks.block_similarities`)."""
        slot = f"{doc.key} {hashlib.blake2b(np.asarray(vector, dtype=np.float64).tobytes()).hexdigest()}"
        if (pending := self._similarities_of.get(slot)) is None:  # steps side by side share one read
            pending = self._similarities_of[slot] = asyncio.ensure_future(self._similarities(doc, vector))
            pending.add_done_callback(lambda done: self._similarities_of.pop(slot, None)  # a failed read: read again
                                      if done.cancelled() or done.exception() is not None else None)
        return await asyncio.shield(pending)

    async def _similarities(self, doc: Document, vector: list[float]) -> np.ndarray:
        return await block_similarities(self.db, doc, await self.blocks(doc), vector,
                                        engine=self.settings.retrieval.vector_engine)


@dataclass(frozen=True)
class Input:
    """One typed input of an operator."""

    name: str
    type: type
    many: bool = False
    optional: bool = False


@dataclass(frozen=True)
class OperatorSpec:
    name: str
    family: str
    summary: str
    params: type[BaseModel]
    inputs: tuple[Input, ...]
    output: type
    fn: Callable[..., Awaitable[Any]]


OPERATORS: dict[str, OperatorSpec] = {}


def _input(name: str, hint: Any) -> Input:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is list:
        return Input(name, args[0], many=True)
    if origin in (typing.Union, types.UnionType) and type(None) in args:
        (inner,) = [a for a in args if a is not type(None)]
        return Input(name, inner, optional=True)
    return Input(name, hint)


def operator(name: str, *, family: str, params: type[BaseModel] = NoParams) -> Callable:
    """Register an async function as the operator ``name`` (see the module docstring)."""

    def register(fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        if name in OPERATORS:
            raise ValueError(f"operator {name!r} is registered twice")
        hints = typing.get_type_hints(fn)
        names = list(inspect.signature(fn).parameters)[2:]
        doc = (fn.__doc__ or "").strip().splitlines()
        OPERATORS[name] = OperatorSpec(name=name, family=family, summary=doc[0] if doc else "", params=params,
                                       inputs=tuple(_input(n, hints[n]) for n in names), output=hints["return"],
                                       fn=fn)
        return fn

    return register


_model_seconds: contextvars.ContextVar[list[float] | None] = contextvars.ContextVar("model_seconds", default=None)


@contextmanager
def model_time() -> Iterator[None]:
    """Count the block's seconds as model inference in the current step's trace."""
    began = time.perf_counter()
    try:
        yield
    finally:
        meter = _model_seconds.get()
        if meter is not None:
            meter[0] += time.perf_counter() - began


@contextmanager
def step_meter() -> Iterator[list[float]]:
    """The executor's side of :func:`model_time`: one meter per step (each step runs in its own task)."""
    meter = [0.0]
    token = _model_seconds.set(meter)
    try:
        yield meter
    finally:
        _model_seconds.reset(token)
