"""Reasoners (paper §5): score the selected tree nodes by graph importance and by text relevance.

**Graph_Reasoning** (:func:`reason_on_graph`): personalized PageRank over each document's whole knowledge graph (not, as
in the paper, the selection's subgraph), teleporting to the question's linked entities; a node scores its GT-Linked
entities' scores (``BOOKRAG_PPR_NODE_SCORE``). Three engines compute it alike (:func:`pagerank_on`), picked by
``BOOKRAG_PPR_ENGINE`` (:func:`choose_engine`): ``plugin``, one call of bookrag-neo4j's plugin on the stored graph
(``bookrag.pageRank``, docker/plugin); ``gds``, one read query on the document's catalog projection
(:mod:`bookrag_neo4j.db.projections`); or ``local``, numpy on an in-memory copy (:mod:`.entity_graph`).

**Text_Reasoning**: the reranker reads each node's text with its section path and label (:func:`node_text`); the offline
fusion reranker ranks a block among all its document's blocks (stored-embedding similarity, BM25:
:mod:`.document_blocks`), so what was selected with it cannot change its score (docs/eval/ranks/).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from neo4j.exceptions import ClientError
from scipy import sparse

from ..db.client import Neo4jClient
from ..db.gds import forget_gds, gds_installed
from ..db.projections import PROJECTIONS, DocumentProjections
from ..db.vectors import PLUGIN_VERSION, plugin_version
from ..errors import ConfigurationError
from ..library.documents import Document
from ..llm.reranker import FusionReranker, Reranker
from ..text.lexical import LexicalStats, bm25_scores
from .entity_graph import ENTITY_GRAPHS, EntityGraph, EntityGraphCache, transition_matrix

log = logging.getLogger(__name__)

MAX_TEXT_CHARS = 2000


def pagerank(n: int, source: np.ndarray, target: np.ndarray, weight: np.ndarray, seeds: Sequence[int],
             **options: Any) -> np.ndarray:
    """Personalized PageRank with GDS's formula on ``n`` nodes and undirected weighted edges given as arrays of
    end positions and weights (see the module docstring)."""
    return pagerank_on(transition_matrix(n, source, target, weight), seeds, **options)


def pagerank_on(transition: sparse.csr_matrix, seeds: Sequence[int], *, damping: float = 0.85,
                max_iterations: int = 50, tolerance: float = 1e-7) -> np.ndarray:
    """Personalized PageRank on a :func:`~.entity_graph.transition_matrix` (an entity graph's is kept with it:
    :attr:`~.entity_graph.EntityGraph.transition`), teleporting to ``seeds``, computed as GDS computes it (its
    Pregel PageRank), so that both engines give the same scores to the last digits, not only within the
    tolerance: each node starts at ``1 - damping`` (a seed) or 0 and passes on what it gained in a step (its
    delta, split by edge weight); a node whose delta is at most ``tolerance`` stops passing it on, and the walk
    stops when no node passes anything on, or after ``max_iterations`` steps (the first one included)."""
    scores = np.zeros(transition.shape[0])
    scores[list(seeds)] = 1.0 - damping
    passed = scores.copy()
    for _ in range(max_iterations - 1):
        delta = damping * (transition @ passed)
        scores += delta
        moving = delta > tolerance
        if not moving.any():
            break
        passed = np.where(moving, delta, 0.0)
    return scores


def pagerank_in_process(nodes: Sequence[str], edges: Sequence[tuple[str, str, float]], sources: Sequence[str],
                        **options: Any) -> dict[str, float]:
    """:func:`pagerank` on named nodes and ``(a, b, weight)`` edges: score by node."""
    index = {k: i for i, k in enumerate(nodes)}
    source = np.array([index[a] for a, _, _ in edges], dtype=np.int64)
    target = np.array([index[b] for _, b, _ in edges], dtype=np.int64)
    scores = pagerank(len(nodes), source, target, np.array([w for *_, w in edges], dtype=float),
                      [index[s] for s in sources], **options)
    return dict(zip(nodes, scores.tolist(), strict=True))


def ppr_engine(configured: str = "auto", gds: bool = False, plugin: bool = False) -> tuple[str, str]:
    """The engine Graph_Reasoning uses, ``plugin``, ``gds`` or ``local``, and why (``bookrag doctor`` shows it):
    the configured one, or with ``auto``, the first of them the server has (``plugin``: bookrag-neo4j's plugin of
    this package's version; ``gds``: GDS)."""
    if configured != "auto":
        return configured, f"BOOKRAG_PPR_ENGINE={configured}"
    if plugin:
        return "plugin", ("the server has bookrag-neo4j's plugin: bookrag.pageRank on the stored graph, in Neo4j "
                          "(BOOKRAG_PPR_ENGINE=gds runs GDS's PageRank, the same scores)")
    if gds:
        return "gds", ("the server has GDS: gds.pageRank.stream on the document's catalog projection, in Neo4j "
                       "(BOOKRAG_PPR_ENGINE=local runs it in-process)")
    return "local", "the server has no GDS: in-process, on a copy of the document's graph (the same scores)"


async def choose_engine(db: Neo4jClient, configured: str = "auto", *, plugin: bool = True) -> tuple[str, str]:
    """:func:`ppr_engine` for ``graph``'s server (what it has is asked once a process); ``plugin=False`` for a
    caller that needs every entity's score, which the plugin does not return (``plugin`` configured: as ``auto``)."""
    if not plugin and configured == "plugin":
        configured = "auto"
    has_plugin = plugin and configured in ("auto", "plugin") and await plugin_version(db) == PLUGIN_VERSION
    if configured == "plugin" and not has_plugin:
        raise ConfigurationError(f"BOOKRAG_PPR_ENGINE=plugin, but the server at {db.conn.uri} has no bookrag-neo4j "
                                 f"plugin {PLUGIN_VERSION} (docker/plugin): use auto, gds or local")
    return ppr_engine(configured, configured == "auto" and await gds_installed(db), has_plugin)


async def plugin_node_scores(db: Neo4jClient, doc_keys: Sequence[str], seeds: Sequence[str],
                             node_keys: Sequence[str], *, node_score: str = "sum", damping: float = 0.85,
                             max_iterations: int = 50, tolerance: float = 1e-7) -> dict[str, float]:
    """:meth:`~bookrag_neo4j.db.projections.DocumentProjections.node_scores` in bookrag-neo4j's plugin: the same
    scores, one call on the stored graph, no projection."""
    if not doc_keys or not seeds or not node_keys:
        return {}
    return dict(await db.read_rows("plugin/node_pagerank", doc_keys=list(doc_keys),
                                      source_keys=list(dict.fromkeys(seeds)), node_keys=list(node_keys),
                                      node_score=node_score, damping=damping, max_iterations=max_iterations,
                                      tolerance=tolerance))


async def entity_pagerank(db: Neo4jClient, documents: Sequence[Document], seeds: Sequence[str], *,
                          engine: str, damping: float = 0.85, budget_bytes: int = 512 * 2**20,
                          graphs: EntityGraphCache = ENTITY_GRAPHS,
                          projections: DocumentProjections = PROJECTIONS) -> list[tuple[EntityGraph, np.ndarray]]:
    """Personalized PageRank over each document's whole entity graph from the seeds it holds: the graph (whose
    ``node_entities`` map tree nodes to entities) and a score per entity, for the documents holding a seed.
    ``engine``: ``gds`` (the document's catalog projection, :mod:`bookrag_neo4j.db.projections`; a graph
    whose build is not complete runs in-process) or ``local``."""
    found = []
    for doc in documents:
        whole = await graphs.get(db, doc)
        sources = [whole.position[s] for s in dict.fromkeys(seeds) if s in whole.position]
        if not sources:
            continue
        if engine == "gds" and doc.graph_version is not None:
            by_key = await projections.pagerank(db, doc.key, doc.graph_version, [whole.keys[i] for i in sources],
                                                budget_bytes=budget_bytes, damping=damping)
            scores = np.array([by_key.get(k, 0.0) for k in whole.keys])
        else:
            scores = pagerank_on(whole.transition, sources, damping=damping)
        found.append((whole, scores))
    return found


NODE_SCORES: dict[str, Callable[[np.ndarray], Any]] = {"sum": np.sum, "mean": np.mean, "max": np.max}
SCORE_DIGITS = 9  # GDS sums in the projection's node order: equal scores may differ in the last bits, so that
# a tie between two nodes would be decided by the order a projection happened to get; rounded, they stay ties


async def graph_reasoning(db: Neo4jClient, node_keys: Sequence[str], seeds: Sequence[str], *,
                          documents: Sequence[Document], engine: str = "local", node_score: str = "sum",
                          damping: float = 0.85, budget_bytes: int = 512 * 2**20,
                          projections: DocumentProjections = PROJECTIONS, **options: Any) -> dict[str, float]:
    """Each node's score from the personalized-PageRank scores of its entities (``node_score``: their sum, mean
    or max); empty when no seed is in the documents' graphs. ``plugin``: :func:`plugin_node_scores`;
    ``gds``: in Neo4j (:meth:`~bookrag_neo4j.db.projections.DocumentProjections.node_scores`; a document whose
    graph build is not complete runs in-process); ``local``: :func:`entity_pagerank` (``options`` go to it)."""
    scored: dict[str, float] = {}
    rest = documents
    if engine == "plugin":
        scored, rest = await plugin_node_scores(db, [d.key for d in documents], seeds, node_keys,
                                                node_score=node_score, damping=damping), []
    elif engine == "gds":
        complete = [d for d in documents if d.graph_version is not None]
        rest = [d for d in documents if d.graph_version is None]
        scored = await projections.node_scores(db, [(d.key, d.graph_version or "") for d in complete], seeds,
                                               node_keys, budget_bytes=budget_bytes, node_score=node_score,
                                               damping=damping)
    if rest:
        combine = NODE_SCORES[node_score]
        for whole, scores in await entity_pagerank(db, rest, seeds, engine="local", damping=damping, **options):
            for node in node_keys:
                entities = whole.node_entities.get(node)
                if entities is not None:
                    scored[node] = float(combine(scores[entities]))
    return {node: round(score, SCORE_DIGITS) for node, score in scored.items()}


async def reason_on_graph(db: Neo4jClient, node_keys: Sequence[str], seeds: Sequence[str], *,
                          documents: Sequence[Document], configured: str = "auto",
                          **options: Any) -> tuple[dict[str, float], str]:
    """:func:`graph_reasoning` on the engine :func:`choose_engine` picks: the scores and the engine that ran.
    ``auto`` on a server that has lost the plugin or GDS since this process asked runs without it (and asks
    again)."""
    engine, _why = await choose_engine(db, configured)
    try:
        return await graph_reasoning(db, node_keys, seeds, documents=documents, engine=engine, **options), engine
    except ClientError as exc:
        if configured != "auto" or engine == "local":
            raise
        if engine == "plugin":
            if await plugin_version(db, fresh=True) == PLUGIN_VERSION:
                raise
            log.warning("bookrag-neo4j's plugin is not on the server any more: Graph_Reasoning runs without it (%s)",
                        exc.message)
            return await reason_on_graph(db, node_keys, seeds, documents=documents, configured=configured,
                                         **options)
        forget_gds(db)
        if await gds_installed(db):
            raise
        log.warning("GDS is not on the server any more: Graph_Reasoning runs in-process (%s)", exc.message)
        return await graph_reasoning(db, node_keys, seeds, documents=documents, engine="local", **options), "local"


@dataclass(frozen=True)
class Candidate:
    """A content block as the reasoners read it, with the similarity of its stored embedding to the
    question (None without an embedding)."""

    key: str
    doc_key: str
    order: int
    title: str
    section_path: str
    text: str
    similarity: float | None = None
    page_start: int = 0
    page_end: int = 0
    label: str = ""  # the short line above the block in its section (retrieval/document_blocks.py), where there is one

    def with_similarity(self, similarity: float | None) -> Candidate:
        """This block with ``similarity`` (``dataclasses.replace`` costs twice as much, per block of a
        selection widened to thousands)."""
        return Candidate(self.key, self.doc_key, self.order, self.title, self.section_path, self.text, similarity,
                         self.page_start, self.page_end, self.label)


def node_text(node: Candidate) -> str:
    """What the text reasoner reads of a node: section path, label, title/caption and text."""
    head = " ".join(part for part in (node.section_path, node.label, node.title) if part)
    return f"{head}\n{node.text}".strip()[:MAX_TEXT_CHARS]


def bm25_by_document(question: str, nodes: Sequence[Candidate], stats: Mapping[str, LexicalStats]) -> list[float]:
    """Each node's BM25 (of its :func:`node_text`) with its document's statistics, by document key (0.0 for a
    node of a document without)."""
    lexical = [0.0] * len(nodes)
    for doc, known in stats.items():
        where = [i for i, n in enumerate(nodes) if n.doc_key == doc]
        for i, score in zip(where, bm25_scores(question, [node_text(nodes[i]) for i in where], stats=known),
                            strict=True):
            lexical[i] = score
    return lexical


async def text_reasoning(question: str, nodes: Sequence[Candidate], reranker: Reranker, *,
                         lexical: Sequence[float] | None = None,
                         population: tuple[np.ndarray, np.ndarray] | None = None) -> dict[str, float]:
    """Reranker score of each node against the question. The similarity of each node's stored embedding to the
    question (``node.similarity``, computed by the Fetch operator) goes along; the fusion reranker uses it
    instead of embedding the texts again. ``lexical``: each node's BM25 with its whole document's statistics
    (:meth:`.blocks.DocumentBlocks.bm25`), which the fusion reranker then uses instead of BM25 over the nodes;
    ``population``: the document's similarities and BM25 scores, which it ranks the nodes among."""
    if not nodes:
        return {}
    texts = [node_text(n) for n in nodes]
    extra: dict[str, Any] = {"lexical": lexical, "population": population} \
        if lexical is not None and isinstance(reranker, FusionReranker) else {}
    scores = await reranker.score(question, texts, similarities=[n.similarity for n in nodes], **extra)
    return {n.key: float(s) for n, s in zip(nodes, scores, strict=True)}
