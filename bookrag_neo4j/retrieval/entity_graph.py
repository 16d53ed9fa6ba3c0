"""Each document's knowledge graph held in memory as arrays, for the in-process PageRank.

    whole = await EntityGraphCache(max_documents=64).get(db, await find_document(db, doc_key))  # read once
    scores = pagerank_on(whole.transition, seeds)         # Graph_Reasoning in-process (scoring.py)

Only the in-process engine (servers without GDS, ``BOOKRAG_PPR_ENGINE=local``) reads this; with GDS, Graph_Reasoning
runs in Neo4j (:mod:`bookrag_neo4j.db.projections`). The whole graph is read once (``retrieval/entity_graph``) rather
than the GT-Links and edges around each question's selection, which cost more to decode in the driver than to compute
on; key positions and the sparse transition matrix are derived once per copy. Copies are keyed by
``Document.graph_version``, so a rebuilt graph is read again and an incomplete one never kept; at most ``max_documents``
(``BOOKRAG_CACHE_DOCUMENTS``), least recently used out first.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from scipy import sparse

from ..db.client import Neo4jClient
from ..library.documents import Document
from .document_cache import DOCUMENTS, shared, sized

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class EntityRow:
    """An entity as ``retrieval/entity_graph`` returns it: its key, the tree nodes GT-Linked to it and its edges
    ([other entity's key, weight])."""

    key: str
    nodes: list[str]
    edges: list[list[Any]]


@dataclass(frozen=True)
class EntityGraph:
    """Entities (by position), their GT-Links and the RELATED/CONTAINED_IN edges among them: one document's
    whole graph, or the subgraph Graph_Reasoning ranks."""

    keys: list[str]
    node_entities: dict[str, np.ndarray]  # tree-node key -> positions of the entities GT-Linked to it
    source: np.ndarray
    target: np.ndarray
    weight: np.ndarray

    @classmethod
    def from_rows(cls, rows: Iterable[EntityRow]) -> EntityGraph:
        """A document's graph from its entities' rows."""
        rows = list(rows)
        keys = [r.key for r in rows]
        position = {k: i for i, k in enumerate(keys)}
        linked: dict[str, list[int]] = {}
        source, target, weight = [], [], []
        for i, row in enumerate(rows):
            for node in row.nodes:
                linked.setdefault(node, []).append(i)
            for other, w in row.edges:
                if other in position:
                    source.append(i)
                    target.append(position[other])
                    weight.append(w)
        return cls(keys=keys, node_entities={n: np.array(v, dtype=np.int64) for n, v in linked.items()},
                   source=np.array(source, dtype=np.int64), target=np.array(target, dtype=np.int64),
                   weight=np.array(weight, dtype=float))

    @cached_property
    def position(self) -> dict[str, int]:
        """Each entity key's position."""
        return {k: i for i, k in enumerate(self.keys)}

    @cached_property
    def transition(self) -> sparse.csr_matrix:
        """PageRank's transition matrix over the undirected weighted edges (:func:`transition_matrix`)."""
        return transition_matrix(len(self.keys), self.source, self.target, self.weight)


def best_first(scores: np.ndarray, top: int) -> list[int]:
    """The positions of the ``top`` highest scores, best first, ties in position order (what a stable
    ``argsort(-scores)[:top]`` gives, without sorting them all)."""
    if top >= len(scores):
        return np.argsort(-scores, kind="stable").tolist()
    if top <= 0:
        return []
    cut = np.partition(scores, len(scores) - top)[len(scores) - top]  # the top-th highest score
    above = np.flatnonzero(scores > cut)
    ties = np.flatnonzero(scores == cut)[:top - len(above)]
    chosen = np.concatenate([above, ties])
    return chosen[np.argsort(-scores[chosen], kind="stable")].tolist()


def transition_matrix(n: int, source: np.ndarray, target: np.ndarray, weight: np.ndarray) -> sparse.csr_matrix:
    """The column-stochastic transition matrix of ``n`` nodes' undirected weighted edges, as GDS's PageRank
    walks them: entry (v, u) = w(u, v) / w(u), where w(u) is u's total edge weight; a node without edges has
    an empty column (no redistribution from dangling nodes)."""
    src = np.concatenate([source, target])
    dst = np.concatenate([target, source])
    both = np.concatenate([weight, weight]).astype(float)
    out_weight = np.bincount(src, weights=both, minlength=n)
    share = both / np.where(out_weight[src] > 0, out_weight[src], 1.0) if len(src) else both
    return sparse.csr_matrix((share, (dst, src)), shape=(n, n))


class EntityGraphCache:
    """Documents' entity graphs by document key and graph version; see the module docstring."""

    def __init__(self, max_documents: int = DOCUMENTS) -> None:
        self.max_documents = max_documents
        self._reading: dict[tuple[tuple[str, str, str], str | None], asyncio.Future[EntityGraph]] = {}
        self._kept: OrderedDict[tuple[str, str, str], tuple[str, EntityGraph]] = OrderedDict()

    def keep(self, documents: int) -> None:
        """Keep ``documents`` graphs from now on (the least recently used beyond them go at once)."""
        self.max_documents = documents
        while len(self._kept) > self.max_documents:
            self._kept.popitem(last=False)

    async def get(self, db: Neo4jClient, doc: Document) -> EntityGraph:
        """The graph of ``doc`` (kept while its ``graph_version`` stays the same)."""
        version = doc.graph_version
        slot = (db.conn.uri, db.conn.database, doc.key)
        kept_version, kept = self._kept.get(slot, (None, None))
        if kept is not None and version is not None and kept_version == version:
            self._kept.move_to_end(slot)
            return kept
        async def read() -> EntityGraph:
            return EntityGraph.from_rows(await db.read_rows_as(EntityRow, "retrieval/entity_graph", doc_key=doc.key))
        loaded = await shared(self._reading, (slot, version), read)
        log.debug("read the entity graph of %s: %d entities, %d edges", doc.key, len(loaded.keys),
                  len(loaded.source))
        if version is not None:
            self._kept[slot] = (version, loaded)
            self._kept.move_to_end(slot)
            while len(self._kept) > self.max_documents:
                self._kept.popitem(last=False)
        return loaded


ENTITY_GRAPHS = sized(EntityGraphCache())  # shared by every agent of the process
