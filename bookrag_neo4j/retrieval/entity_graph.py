"""Graph_Reasoning's working copy of each document's knowledge graph, held in memory as arrays.

    graphs = EntityGraphCache(max_documents=16)
    whole = await graphs.get(graph, await find_document(graph, doc_key))  # read once
    sub = whole.subgraph(["<tree node key>", ...])        # the entities GT-Linked to them, edges among them

Reading the GT-Links and edges of the entities around ~400 selected nodes took 150 ms a question on a
549-page 10-K (40 ms in Neo4j, the rest decoding ~20k edges in the driver); loading the document's whole graph
once (one named query, ``retrieval/entity_graph``: 0.6 s for 9,820 entities and 60,469 edges) and cutting
the subgraph out in numpy takes a few ms a question after that. The copy is keyed by the document's
``Document.graph_version`` (graph configuration, build time and counts), so a
rebuilt graph is read again; a document whose graph is not complete is read every time and never kept. At
most ``max_documents`` documents are kept (least recently used first out).
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..graph.client import GraphClient
from ..library.documents import Document

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EntityGraph:
    """Entities (by position), their GT-Links and the RELATED/CONTAINED_IN edges among them: one document's
    whole graph, or the subgraph Graph_Reasoning ranks."""

    keys: list[str]
    node_entities: dict[str, np.ndarray]  # tree-node key -> positions of the entities GT-Linked to it
    source: np.ndarray
    target: np.ndarray
    weight: np.ndarray
    names: list[str] = field(default_factory=list)  # normalised names, by position (whole graphs only)
    vectors: np.ndarray | None = None  # unit-length embeddings, by position (zero rows where none)

    @classmethod
    def from_rows(cls, rows: Iterable[Mapping[str, Any]]) -> EntityGraph:
        """From ``retrieval/entity_graph`` rows: key, nodes (GT-Linked tree-node keys), edges ([target, weight])."""
        rows = list(rows)
        keys = [r["key"] for r in rows]
        position = {k: i for i, k in enumerate(keys)}
        linked: dict[str, list[int]] = {}
        source, target, weight = [], [], []
        for i, row in enumerate(rows):
            for node in row["nodes"]:
                linked.setdefault(node, []).append(i)
            for other, w in row["edges"]:
                if other in position:
                    source.append(i)
                    target.append(position[other])
                    weight.append(w)
        dimension = next((len(r["embedding"]) for r in rows if r.get("embedding")), 0)
        vectors = np.array([r.get("embedding") or [0.0] * dimension for r in rows], dtype=np.float32).reshape(
            len(rows), dimension)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return cls(keys=keys, node_entities={n: np.array(v, dtype=np.int64) for n, v in linked.items()},
                   source=np.array(source, dtype=np.int64), target=np.array(target, dtype=np.int64),
                   weight=np.array(weight, dtype=float), names=[r.get("name") or "" for r in rows],
                   vectors=vectors / np.where(norms > 0, norms, 1.0))

    def link(self, name: str, vector: Sequence[float], *, threshold: float, top: int) -> list[tuple[str, float]]:
        """The entities a question entity links to: those with its normalised ``name`` (score 1.0) and those
        whose embedding's cosine similarity to ``vector``, as (1 + cos) / 2, is at least ``threshold``; the
        best ``top``, as (key, score). Exact over the whole document: the same for any library around it."""
        scores = np.zeros(len(self.keys))
        if self.vectors is not None and len(self.keys) and self.vectors.shape[1] == len(vector):
            query = np.asarray(vector, dtype=np.float32)
            scores = (1.0 + self.vectors @ (query / (np.linalg.norm(query) or 1.0))) / 2.0
            scores[~self.vectors.any(axis=1)] = 0.0
        scores = np.where(np.array([n == name for n in self.names], dtype=bool), 1.0, scores) if name else scores
        best = [i for i in np.argsort(-scores, kind="stable")[:top] if scores[i] >= threshold]
        return [(self.keys[i], round(float(scores[i]), 6)) for i in best]

    def subgraph(self, node_keys: Iterable[str]) -> EntityGraph:
        """The entities GT-Linked to the nodes and the edges among them, renumbered from 0."""
        per_node = {n: self.node_entities[n] for n in node_keys if n in self.node_entities}
        if not per_node:
            return EntityGraph.empty()
        chosen = np.unique(np.concatenate(list(per_node.values())))
        renumber = np.full(len(self.keys), -1, dtype=np.int64)
        renumber[chosen] = np.arange(len(chosen))
        kept = (renumber[self.source] >= 0) & (renumber[self.target] >= 0)
        return EntityGraph(keys=[self.keys[i] for i in chosen.tolist()],
                           node_entities={n: renumber[v] for n, v in per_node.items()},
                           source=renumber[self.source[kept]], target=renumber[self.target[kept]],
                           weight=self.weight[kept])

    @classmethod
    def empty(cls) -> EntityGraph:
        none = np.zeros(0, dtype=np.int64)
        return cls(keys=[], node_entities={}, source=none, target=none, weight=np.zeros(0))

    @classmethod
    def union(cls, parts: Sequence[EntityGraph]) -> EntityGraph:
        """Several documents' (sub)graphs side by side, renumbered (documents share no entities)."""
        if len(parts) <= 1:
            return parts[0] if parts else cls.empty()
        offsets = np.cumsum([0, *(len(p.keys) for p in parts)])[:-1].tolist()
        node_entities: dict[str, np.ndarray] = {}
        for part, offset in zip(parts, offsets, strict=True):
            for node, positions in part.node_entities.items():
                earlier = node_entities.get(node)
                node_entities[node] = positions + offset if earlier is None else np.concatenate(
                    [earlier, positions + offset])
        return cls(keys=[k for p in parts for k in p.keys], node_entities=node_entities,
                   source=np.concatenate([p.source + o for p, o in zip(parts, offsets, strict=True)]),
                   target=np.concatenate([p.target + o for p, o in zip(parts, offsets, strict=True)]),
                   weight=np.concatenate([p.weight for p in parts]))


class EntityGraphCache:
    """Documents' entity graphs by document key and graph version; see the module docstring."""

    def __init__(self, max_documents: int = 16) -> None:
        self.max_documents = max_documents
        self._kept: OrderedDict[tuple[str, str, str], tuple[str, EntityGraph]] = OrderedDict()

    async def get(self, graph: GraphClient, doc: Document) -> EntityGraph:
        """The graph of ``doc`` (kept while its ``graph_version`` stays the same)."""
        version = doc.graph_version
        slot = (graph.conn.uri, graph.conn.database, doc.key)
        kept_version, kept = self._kept.get(slot, (None, None))
        if kept is not None and version is not None and kept_version == version:
            self._kept.move_to_end(slot)
            return kept
        loaded = EntityGraph.from_rows(await graph.read_rows("retrieval/entity_graph", doc_key=doc.key))
        log.debug("read the entity graph of %s: %d entities, %d edges", doc.key, len(loaded.keys),
                  len(loaded.source))
        if version is not None:
            self._kept[slot] = (version, loaded)
            self._kept.move_to_end(slot)
            while len(self._kept) > self.max_documents:
                self._kept.popitem(last=False)
        return loaded


ENTITY_GRAPHS = EntityGraphCache()  # shared by every agent of the process
