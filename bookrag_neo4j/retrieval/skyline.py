"""Skyline_Ranker (paper §5): keep the nodes that no other node beats on both graph and text score.

    kept = skyline([("a", 0.9, 0.1), ("b", 0.2, 0.8), ("c", 0.1, 0.1)], minimum=2, maximum=10)   # a, b

Rules, since the paper leaves them open:

- A node is **dominated** when another node is at least as good on both scores and strictly better on one.
  The Pareto front is every non-dominated node.
- **Backfill**: when the front has fewer than ``minimum`` nodes, the best remaining nodes are added
  alternately from the text ranking and the graph ranking (text first: it reads the question itself) until
  ``minimum`` is reached or nothing is left.
- **Cap**: when the front has more than ``maximum`` nodes, it keeps the ``maximum`` with the best sum of the
  two scores, each min-max normalised over the candidates.

The result is ordered by that normalised sum (best first).
"""

from __future__ import annotations

from collections.abc import Sequence


def pareto_front(points: Sequence[tuple[str, float, float]]) -> list[str]:
    """Keys of the non-dominated points (maximising both scores)."""
    ranked = sorted(points, key=lambda p: (-p[1], -p[2], p[0]))
    front, best_text = [], float("-inf")
    for key, _graph, text in ranked:  # by graph score descending: kept iff its text score beats all before
        if text > best_text:
            front.append(key)
            best_text = text
    # points with equal graph score and equal text score as a front member are not dominated either
    kept = set(front)
    scores = {p[0]: (p[1], p[2]) for p in points}
    for key, g, t in points:
        if key not in kept and any(scores[f] == (g, t) for f in front):
            kept.add(key)
    return [p[0] for p in ranked if p[0] in kept]


def _normalised_sum(points: Sequence[tuple[str, float, float]]) -> dict[str, float]:
    def scale(values: list[float]) -> list[float]:
        lo, hi = min(values), max(values)
        return [(v - lo) / (hi - lo) if hi > lo else 0.0 for v in values]

    graph = scale([p[1] for p in points])
    text = scale([p[2] for p in points])
    return {p[0]: g + t for p, g, t in zip(points, graph, text, strict=True)}


def skyline(points: Sequence[tuple[str, float, float]], *, minimum: int = 5, maximum: int = 10) -> list[str]:
    """The Skyline with backfill and cap (see the module docstring)."""
    if not points:
        return []
    combined = _normalised_sum(points)
    kept = pareto_front(points)
    if len(kept) > maximum:
        kept = sorted(kept, key=lambda k: -combined[k])[:maximum]
    by_text = [p[0] for p in sorted(points, key=lambda p: (-p[2], p[0]))]
    by_graph = [p[0] for p in sorted(points, key=lambda p: (-p[1], p[0]))]
    chosen = set(kept)
    queues = [iter(by_text), iter(by_graph)]
    turn = 0
    while len(kept) < min(minimum, len(points)):
        for key in queues[turn % 2]:
            if key not in chosen:
                kept.append(key)
                chosen.add(key)
                break
        turn += 1
    return sorted(kept, key=lambda k: -combined[k])
