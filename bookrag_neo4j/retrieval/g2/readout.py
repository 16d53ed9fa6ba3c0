"""G²-Reader's structured subgraph readout (paper §3.2.3) to a node budget k, in one named Cypher query a document.

    keys = await readout(db, docs, question, vector, k=10)                  # the evolved graph
    keys = await readout(db, docs, question, vector, k=10, neighbours=0)    # top-k, no neighbours
    keys = await readout(db, docs, question, vector, k=10, evolved=False)   # h(0) and window links (T = 0)

The probe ranks content nodes by cosine to the question (exact, per document) and by the full-text index, 5 semantic to
3 lexical hits as in the reference code, scaled to k, fused by reciprocal rank. Best hit first, each hit joins the
output with at most ``neighbours`` linked neighbours, those the probe ranks first (the paper takes all), until the
output holds k nodes, never more; it shows hits first, then the neighbours they brought (docs/eval/repeats/).
``flat_readout``: the same probe over the layout layer's passages, no content graph (``g2-flat``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...db.client import KeyScore, Neo4jClient
from ...db.lucene import lucene_in_documents
from ...db.vectors import use_plugin
from ...library.documents import Document
from ..units import nearest_units, passage_texts, read_per_build

SEMANTIC, LEXICAL = 5, 3  # the reference code's probe: 5 semantic + 3 keyword hits
RRF_K = 60  # reciprocal-rank fusion's constant, as the Fuse operator's


def probe_sizes(k: int) -> tuple[int, int]:
    """Semantic and lexical hits of the probe for a budget of ``k`` (5:3, at least that)."""
    scale = max(1.0, k / SEMANTIC)
    return round(SEMANTIC * scale), math.ceil(LEXICAL * scale)


def _matrices(rows: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    def matrix(field: str) -> np.ndarray:
        return np.array([r[field] for r in rows], dtype=np.float32).reshape(len(rows), -1) if rows \
            else np.zeros((0, 1), dtype=np.float32)
    return matrix("embedding"), matrix("initial")


async def _similarities(db: Neo4jClient, doc: Document, vector: Sequence[float], *,
                        evolved: bool, engine: str) -> dict[str, float]:
    """Each content node's cosine to the question, in reading order: exact, in the plugin where the server has it
    (``engine``), else on the embeddings read once per build."""
    build = f"{doc.g2_config}|{doc.g2_built_at}"
    if await use_plugin(db, engine=engine):
        keys, _ = await read_per_build(db, doc, "content/keys", lambda rows: None, build=build)
        scored = dict(await db.read_rows("plugin/content_similarities", doc_key=doc.key,
                                            embedding=list(map(float, vector)),
                                            property="g2_embedding" if evolved else "g2_embedding0"))
        return {key: 2.0 * scored[key] - 1.0 for key in keys if key in scored}
    keys, (h, h0) = await read_per_build(db, doc, "content/vectors", _matrices, build=build)
    if not keys:
        return {}
    return dict(zip(keys, ((h if evolved else h0) @ np.asarray(vector, dtype=np.float32)).tolist(), strict=True))


@dataclass(frozen=True, slots=True)
class ProbeHit:
    """A content node the probe found (``content/readout``): its rank in each probe that found it (``by``:
    semantic, lexical) and its linked neighbours."""

    key: str
    ranks: list[dict[str, str | int]]
    neighbours: list[str]

    def fused(self) -> tuple[float, int]:
        """Its reciprocal-rank-fusion score and its semantic rank (10**6 when the semantic probe missed it)."""
        ranks = {str(r["by"]): int(r["rank"]) for r in self.ranks}
        return sum(1.0 / (RRF_K + rank) for rank in ranks.values()), ranks.get("semantic", 10**6)


def fill(hits: Sequence[tuple[str, Sequence[str]]], k: int) -> list[str]:
    """The greedy readout: each hit, then its neighbours, in order, until ``k`` distinct nodes (never more); shown
    hits first, in the probe's order, then the neighbours in the order they joined (a neighbour that is also a
    hit is shown as a hit)."""
    out: list[str] = []
    for key, neighbours in hits:
        for node in (key, *neighbours):
            if len(out) < k and node not in out:
                out.append(node)
    rank: dict[str, int] = {}
    for i, (key, _) in enumerate(hits):
        rank.setdefault(key, i)
    return sorted(out, key=lambda node: (0, rank[node]) if node in rank else (1, out.index(node)))


async def readout(db: Neo4jClient, docs: Sequence[Document], question: str, vector: Sequence[float], *,
                  k: int, neighbours: int = 3, evolved: bool = True, engine: str = "auto") -> list[str]:
    """The readout of ``question`` over the documents' content graphs: at most ``k`` content-node keys."""
    semantic, lexical = probe_sizes(k)
    kinds = ["window", "knn", "llm"] if evolved else ["window"]
    scored: list[tuple[float, int, str, list[str]]] = []  # RRF score, semantic rank, key, nearest neighbours
    for doc in docs:
        similarity = await _similarities(db, doc, vector, evolved=evolved, engine=engine)
        keys = sorted(similarity, key=lambda key: -similarity[key])[:semantic]  # stable: ties in reading order
        hits = await db.read_rows_as(ProbeHit, "content/readout", semantic=keys,
                                     query=lucene_in_documents(question, [doc.key]), lexical=lexical, kinds=kinds)
        found = [(*hit.fused(), hit.key, sorted(hit.neighbours, key=lambda key: -similarity.get(key, -1.0))[
            :neighbours]) for hit in hits]
        scored += sorted(found, key=lambda x: (-x[0], x[1]))
    scored.sort(key=lambda x: (-x[0], x[1]))
    return fill([(key, nearest) for _, _, key, nearest in scored], k)


async def flat_readout(db: Neo4jClient, docs: Sequence[Document], question: str, vector: Sequence[float], *,
                       k: int, engine: str = "auto") -> list[str]:
    """The same probe over the layout layer's passages alone (their stored embeddings and the passage full-text
    index), fused by reciprocal rank, top k: no summaries, keywords, evolution or links."""
    semantic, lexical = probe_sizes(k)
    fused: dict[str, float] = {}
    for doc in docs:
        passages, _ = await passage_texts(db, doc)
        known = set(passages)
        vector_hits = [key for key, _ in await nearest_units(db, doc, vector, kind="passage", top=semantic,
                                                             engine=engine)]
        rows = await db.read_rows_as(KeyScore, "layout/lexical_units", query=lucene_in_documents(question, [doc.key]),
                                     top=lexical * 3)
        lexical_hits = [r.key for r in rows if r.key in known][:lexical]
        for hits in (vector_hits, lexical_hits):
            for rank, key in enumerate(hits, 1):
                fused[key] = fused.get(key, 0.0) + 1.0 / (RRF_K + rank)
    return [key for key, _ in sorted(fused.items(), key=lambda kv: -kv[1])[:k]]
