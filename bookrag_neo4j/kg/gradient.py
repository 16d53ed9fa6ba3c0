"""The gradient rule of the paper's entity resolution (Algorithm 1), as a pure function.

Candidates for a new entity come from the entity vector index and are scored by the reranker against it.
Sorted by score, the top candidate is kept, and the walk down keeps each next candidate while its score is at
least ``gradient`` times the previous kept score; it stops at the first sharp drop.

- **No drop** (every candidate kept): nothing stands out, so the new entity is **new**. (The reference code's
  test for this never fires; here it does.)
- **A drop after one candidate**: **merge** into it.
- **A drop after several**: the LLM **judges** among the kept candidates (or picks none).

Gates, documented because the paper leaves them implicit:

- ``min_score``: if the top score is below it, the entity is new whatever the gradient says (a clear winner
  that is still unrelated must not merge).
- A single candidate has no gradient to read. It merges only when its score reaches
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
