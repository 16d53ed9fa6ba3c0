"""Reasoners (paper §5): score the selected tree nodes by graph importance and by text relevance.

    docs = await selectors.scope_documents(graph, [doc_key])
    graph_scores = await graph_reasoning(graph, node_keys, ["<entity key>"], documents=docs, damping=0.85)
    text_scores = await text_reasoning(question, nodes, reranker)   # nodes from selectors.candidates

**Graph_Reasoning** projects the entities GT-Linked to the selected nodes (and the RELATED/CONTAINED_IN edges
among them) as a GDS graph with a unique name, always dropped; runs personalized PageRank
(``gds.pageRank.stream`` with ``sourceNodes`` = the question's linked entities); a node's score is the sum of
the PPR scores of the entities GT-Linked to it. GDS procedures are called through the driver (named queries
in ``cypher/gds/``), not the ``graphdatascience`` client. Tried: graphdatascience 2.2 works against OpenGDS
2.13.9 (``gds.graph.project.cypher``, ``gds.page_rank.stream``), but its stream returns internal node ids,
which need the deprecated ``id()`` or another round trip to map back to entity keys, and it makes pandas and
pyarrow (~100 MB) core dependencies. Since subgraphs up to ``LOCAL_PPR_MAX_ENTITIES`` run in-process (twice
as fast as GDS, measured with ``BOOKRAG_PPR_ENGINE=local|gds bookrag bench query``, see the README), the GDS
path is the rare one and keeps to the driver.

Small subgraphs take a faster path that computes the same scores: the subgraph is cut from an in-memory copy
of the document's entity graph (:mod:`.entity_graph`) and PageRank runs in-process with the same formula as
GDS (``score = (1 - d)·[source] + d·Σ score(u)·w(u,v)/w(u)``, undirected, weighted, no redistribution from
dangling nodes). ``engine="auto"`` uses it up to
``LOCAL_PPR_MAX_ENTITIES`` entities, where it measured faster (see the README), and GDS above;
``BOOKRAG_PPR_ENGINE`` forces either.

**Text_Reasoning** scores every selected node's text (tables as their linearised text) against the question
with the reranker. The offline fusion reranker reuses each block's similarity to the question, computed in
Neo4j from the embedding stored at indexing (no re-embedding at question time); a cross-encoder or
``/rerank`` endpoint reads the texts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..graph.client import GraphClient
from ..graph.gds import personalized_pagerank, projected_entity_graph
from ..library.documents import Document
from ..llm.reranker import Reranker
from .entity_graph import ENTITY_GRAPHS, EntityGraph, EntityGraphCache

MAX_TEXT_CHARS = 2000


def pagerank(n: int, source: np.ndarray, target: np.ndarray, weight: np.ndarray, seeds: Sequence[int], *,
             damping: float = 0.85, max_iterations: int = 50, tolerance: float = 1e-7) -> np.ndarray:
    """Personalized PageRank with GDS's formula on ``n`` nodes and undirected weighted edges given as arrays of
    end positions and weights (see the module docstring)."""
    src = np.concatenate([source, target])
    dst = np.concatenate([target, source])
    both = np.concatenate([weight, weight])
    out_weight = np.bincount(src, weights=both, minlength=n)
    share = both / np.where(out_weight[src] > 0, out_weight[src], 1.0) if len(src) else both
    teleport = np.zeros(n)
    teleport[list(seeds)] = 1.0 - damping
    scores = teleport.copy()
    for _ in range(max_iterations):
        updated = teleport + damping * np.bincount(dst, weights=scores[src] * share, minlength=n)
        converged = np.max(np.abs(updated - scores)) < tolerance
        scores = updated
        if converged:
            break
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


LOCAL_PPR_MAX_ENTITIES = 10_000  # the largest subgraphs measured (a few thousand entities) were faster in-process


async def graph_reasoning(graph: GraphClient, node_keys: Sequence[str], seeds: Sequence[str], *,
                          documents: Sequence[Document], damping: float = 0.85, engine: str = "auto",
                          graphs: EntityGraphCache = ENTITY_GRAPHS) -> dict[str, float]:
    """Sum of the personalized-PageRank scores of each node's entities (empty without seeds in the subgraph).
    ``documents``: the documents the nodes belong to; their entity graphs come from
    ``graphs`` (see :mod:`.entity_graph`). ``engine``: ``gds``, ``local`` (in-process) or ``auto`` (local for
    subgraphs up to ``LOCAL_PPR_MAX_ENTITIES`` entities)."""
    if not node_keys:
        return {}
    sub = EntityGraph.union([(await graphs.get(graph, doc)).subgraph(node_keys) for doc in documents])
    position = {k: i for i, k in enumerate(sub.keys)}
    sources = [position[s] for s in dict.fromkeys(seeds) if s in position]
    if not sources:
        return {}
    if engine == "local" or (engine == "auto" and len(sub.keys) <= LOCAL_PPR_MAX_ENTITIES):
        ppr = pagerank(len(sub.keys), sub.source, sub.target, sub.weight, sources, damping=damping)
    else:
        async with projected_entity_graph(graph, sub.keys) as projection:
            by_key = await personalized_pagerank(graph, projection, source_keys=[sub.keys[i] for i in sources],
                                                 damping=damping)
        ppr = np.array([by_key.get(k, 0.0) for k in sub.keys])
    return {node: float(ppr[entities].sum()) for node, entities in sub.node_entities.items()}


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



def node_text(node: Candidate) -> str:
    """What the text reasoner reads of a node: section path, title/caption and text."""
    head = " ".join(part for part in (node.section_path, node.title) if part)
    return f"{head}\n{node.text}".strip()[:MAX_TEXT_CHARS]


async def text_reasoning(question: str, nodes: Sequence[Candidate], reranker: Reranker) -> dict[str, float]:
    """Reranker score of each node against the question. The similarity of each node's stored embedding to the
    question (``node.similarity``, computed in Neo4j by the Fetch operator) goes along; the fusion reranker
    uses it instead of embedding the texts again."""
    if not nodes:
        return {}
    scores = await reranker.score(question, [node_text(n) for n in nodes],
                                  similarities=[n.similarity for n in nodes])
    return {n.key: float(s) for n, s in zip(nodes, scores, strict=True)}
