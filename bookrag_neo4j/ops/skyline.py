"""Skyline_Ranker (paper §5, eq. 14): keep the nodes no other node beats on both scores, as units of evidence.

    units = skyline([("a", 0.9, 0.1), ("b", 0.2, 0.8), ("c", 0.1, 0.1)], minimum=2, maximum=10)  # [["b"], ["a"]]

Rules the paper leaves open: a node is dominated when another is at least as good on both scores and better on one; the
Pareto front varies in size with the question. **Leads**: the best block of each name the question gives (a numbered
figure or table, a page, a statement) joins the front whatever its scores, as a second named statement is often beaten
by the first (docs/eval/leads/). A **fused score** (reciprocal-rank fusion of the two competition ranks; ties by the
other score, then reading order) caps the front and picks the backfill. **Repeats** of a kept node's text in its
document are left out. **Order**: units by the text score of their best node: the graph score picks nodes well and
orders them badly (docs/eval/README.md: "BookRAG ... against the baselines and its ablations").
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Mapping, Sequence

RRF_K = 60


def pareto_front(points: Sequence[tuple[str, float, float]]) -> list[str]:
    """Keys of the non-dominated points (maximising both scores), by graph score then text score."""
    ranked = sorted(points, key=lambda p: (-p[1], -p[2]))
    front: list[str] = []
    best_text = float("-inf")
    previous: tuple[float, float] | None = None
    for key, graph, text in ranked:  # by graph score descending: kept iff its text score beats all before,
        if text > best_text or (graph, text) == previous:  # or it ties the last kept point on both
            front.append(key)
            best_text, previous = max(best_text, text), (graph, text)
    return front


def _ranks(values: Sequence[float]) -> list[int]:
    """Competition ranks, 1 = best; tied values share the better rank."""
    first: dict[float, int] = {}
    for i, v in enumerate(sorted(values, reverse=True)):
        first.setdefault(v, i + 1)
    return [first[v] for v in values]


def fused_scores(points: Sequence[tuple[str, float, float]], k: int = RRF_K) -> dict[str, float]:
    """Reciprocal-rank fusion of the graph and text ranks, by key."""
    graph, text = _ranks([p[1] for p in points]), _ranks([p[2] for p in points])
    return {p[0]: 1.0 / (k + g) + 1.0 / (k + t) for p, g, t in zip(points, graph, text, strict=True)}


def spanned(pages: Mapping[str, tuple[str, int, int]] | None, key: str) -> list[tuple[str, int]]:
    """The (document, page) pairs a key shows, from its (document, first page, last page); none without a page."""
    if not pages or key not in pages or not pages[key][1]:
        return []
    doc, first, last = pages[key]
    return [(doc, page) for page in range(first, max(first, last) + 1)]


def skyline(points: Sequence[tuple[str, float, float]], *, minimum: int = 10, maximum: int = 10,
            pages: Mapping[str, tuple[str, int, int]] | None = None,
            content: Callable[[str], Hashable | None] | None = None,
            leads: Collection[str] = ()) -> list[list[str]]:
    """The Skyline as units of keys (each unit's first key leads it), best first; ``points`` are (key, graph
    score, text score) in the candidates' order, ``pages`` each key's (document, first page, last page),
    ``content`` gives a key's content (equal for repeats; None repeats nothing; asked only of the keys the
    Skyline considers, not of every candidate), ``leads`` keys that join the front. See the module docstring."""
    fused = fused_scores(points)
    position = {p[0]: i for i, p in enumerate(points)}
    order = sorted(fused, key=lambda key: (-fused[key], position[key]))
    units: list[list[str]] = []
    shown: dict[tuple[str, int], int] = {}  # (document, page) -> the unit showing it

    seen: set[Hashable] = set()  # the content of the kept nodes

    def add(key: str, *, new_units: bool) -> None:
        same = content(key) if content else None
        if same is not None and same in seen:
            return
        span = spanned(pages, key)
        owners = {shown.get(s) for s in span}
        if span and len(owners) == 1 and None not in owners:  # its pages are shown: it joins that unit
            units[owners.pop()].append(key)  # type: ignore[index]
        elif new_units:
            units.append([key])
            for s in span:
                shown.setdefault(s, len(units) - 1)
        else:
            return
        if same is not None:
            seen.add(same)

    front = set(pareto_front(points)) | set(leads)
    for key in order:  # the front, in fused order, within the cap
        if key in front:
            add(key, new_units=len(units) < maximum)
    kept = {k for unit in units for k in unit}
    for key in order:  # the backfill
        if len(units) >= minimum:
            break
        if key not in kept:
            add(key, new_units=True)
    text = {p[0]: p[2] for p in points}
    rank = {key: i for i, key in enumerate(sorted(order, key=lambda key: -text[key]))}  # stable: ties in fused order
    units = [sorted(unit, key=lambda key: rank[key]) for unit in units]  # each led by its best node
    return sorted(units, key=lambda unit: rank[unit[0]])

