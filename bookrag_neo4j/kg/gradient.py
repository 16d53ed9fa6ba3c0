"""The gradient rule of the paper's entity resolution (Algorithm 1), as a pure function.

A new entity's scored candidates (:mod:`.resolve`) are sorted; the top one is kept, and each next one while its score is
at least ``gradient`` times the previous kept score. No drop (all kept): nothing stands out, the entity is **new** (the
reference code's test for this never fires; here it does). A drop after one: **merge** into it. After several: the LLM
**judges** among the kept (or picks none). Gates the paper leaves implicit: a top score below ``min_score`` makes it new
(an unrelated clear winner must not merge); a single candidate has no gradient and merges only at
``single_candidate_score``.

    >>> gradient_decision([Scored("e1", 0.92), Scored("e2", 0.31), Scored("e3", 0.30)]).action
    'merge'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True)
class Scored:
    """A candidate entity (by key) with its reranker score against the new entity."""

    key: str
    score: float


@dataclass(frozen=True)
class Decision:
    action: Literal["new", "merge", "judge"]
    kept: list[Scored] = field(default_factory=list)
    reason: str = ""


def gradient_decision(
    candidates: list[Scored],
    *,
    gradient: float = 0.6,
    min_score: float = 0.5,
    single_candidate_score: float = 0.9,
) -> Decision:
    """Apply the gradient rule (see the module docstring) to reranked candidates."""
    if not candidates:
        return Decision("new", reason="no candidates")
    ranked = sorted(candidates, key=lambda c: c.score, reverse=True)
    top = ranked[0]
    if top.score < min_score:
        return Decision("new", reason=f"top score {top.score:.3f} below {min_score}")
    if len(ranked) == 1:
        if top.score >= single_candidate_score:
            return Decision("merge", [top], "single candidate above the threshold")
        return Decision("new", reason="single candidate below the threshold")
    kept = [top]
    for candidate in ranked[1:]:
        if candidate.score >= kept[-1].score * gradient:
            kept.append(candidate)
        else:
            break
    if len(kept) == len(ranked):
        return Decision("new", kept, "no sharp drop: nothing stands out")
    if len(kept) == 1:
        return Decision("merge", kept, f"sharp drop after {top.key}")
    return Decision("judge", kept, f"{len(kept)} candidates before the drop")
