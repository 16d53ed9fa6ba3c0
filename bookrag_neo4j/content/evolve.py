"""G²-Reader's content-graph topology without a model: sliding-window edges and the *Lite* evolution (paper §3.2.1,
Appendix B), on node embeddings in reading order.

    pairs = window_pairs(n=6, w=2)            # [(0, 1), (0, 2), (1, 2), (1, 3), ...]: 1 <= j - i <= w
    evolution = lite_evolution(vectors, rounds=3, k=5, alpha=0.5)
    evolution.vectors                          # h^(T), one row a node
    evolution.links                            # {(i, j): Link(score, t)}: each node's top-K of the last round

Each round t = 1..T takes every node's top-K neighbours by cosine (exact, ties broken by reading order, so a run is
deterministic), moves its embedding towards them, h_i <- alpha h_i + (1 - alpha) sum_j S_ij h_j / sum_j S_ij, and
links it to them: the edges are "deterministically updated to connect v_i with N_i", so the links kept are those
of the last round, each with the round ``t`` that first linked the pair and its similarity in the last round.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Link:
    score: float  # cosine of the two nodes' embeddings in the round that kept the link
    t: int  # the evolution round (1-based) that first linked the pair


@dataclass(frozen=True)
class Evolution:
    vectors: np.ndarray  # the evolved embeddings, unit length, one row a node
    links: dict[tuple[int, int], Link]  # (i, j): j is among i's top-K neighbours after the last round
    rounds: int


def window_pairs(n: int, w: int) -> list[tuple[int, int]]:
    """The sliding-window pairs (i, j), i < j, of ``n`` nodes in reading order: 1 <= j - i <= w."""
    return [(i, j) for i in range(n) for j in range(i + 1, min(n, i + w + 1))]


def _unit(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)


CHUNK = 1024  # rows of the similarity matrix held at once: memory grows with n, not n squared


def nearest(vectors: np.ndarray, k: int, *, chunk: int = CHUNK) -> tuple[np.ndarray, np.ndarray]:
    """Each node's ``k`` best other nodes by dot product, best first, ties in reading order (what a stable sort of
    the full matrix gives), and those similarities: (n x k indices, n x k scores). Exact, computed ``chunk`` rows
    at a time, so 20,000 passages need 160 MB rather than the several n x n matrices (3 GB each) of a full sort."""
    n = len(vectors)
    k = min(k, max(n - 1, 0))
    neighbours, scores = np.zeros((n, k), dtype=np.int64), np.zeros((n, k), dtype=np.float64)
    if k == 0:
        return neighbours, scores
    for start in range(0, n, chunk):
        similarity = vectors[start:start + chunk] @ vectors.T
        rows = np.arange(len(similarity))
        similarity[rows, start + rows] = -np.inf  # never the node itself
        kth = -np.partition(-similarity, k - 1, axis=1)[:, k - 1]  # each row's k-th best value
        for r in rows:
            tied = np.flatnonzero(similarity[r] >= kth[r])  # the k best and any tied with the k-th
            best = tied[np.argsort(-similarity[r, tied], kind="stable")][:k]
            neighbours[start + r], scores[start + r] = best, similarity[r, best]
    return neighbours, scores


def lite_step(vectors: np.ndarray, k: int, alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One Lite round on unit ``vectors``: (the updated unit vectors, the neighbours, their similarities).
    Neighbours with a similarity of 0 or less carry no weight; a node with no positive weight keeps its vector."""
    neighbours, similarity = nearest(vectors, k)
    updated = vectors.copy()
    for i, row in enumerate(neighbours):
        weights = np.clip(similarity[i], 0, None)
        if weights.sum() > 0:
            updated[i] = alpha * vectors[i] + (1 - alpha) * (weights @ vectors[row]) / weights.sum()
    return _unit(updated), neighbours, similarity


def lite_evolution(vectors: np.ndarray, *, rounds: int, k: int, alpha: float) -> Evolution:
    """``rounds`` Lite rounds over ``vectors`` (n x d, reading order); see the module docstring."""
    current = _unit(np.asarray(vectors, dtype=np.float64))
    first_seen: dict[tuple[int, int], int] = {}
    links: dict[tuple[int, int], Link] = {}
    for t in range(1, rounds + 1):
        current, neighbours, similarity = lite_step(current, k, alpha)
        links = {}
        for i, row in enumerate(neighbours):
            for col, j in enumerate(row):
                pair = (i, int(j))
                first_seen.setdefault(pair, t)
                links[pair] = Link(score=float(similarity[i, col]), t=first_seen[pair])
    return Evolution(vectors=current, links=links, rounds=rounds)
