"""Does each part of a method help? Every ablation evaluated beside its full method, as its difference in page
recall within 5 pages, on the whole set and on its two halves (``design`` and ``check``, by a hash of the file
name: :func:`~bookrag_neo4j.eval.benchmark.half`). A part helps where leaving it out loses on both halves, hurts where
that gains on both, changes nothing (none) or is mixed; a gain on one half alone is what tuning to the questions
looks like.

    print(parts_section(summary.parts))   # ``bookrag eval``'s summary: :func:`~bookrag_neo4j.eval.summary.part_effects`
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, computed_field

from .benchmark import HALVES

Verdict = Literal["helps", "hurts", "none", "mixed"]


class PartEffect(BaseModel):
    """One ablation against its full method: the full method's score and the ablation's difference from it."""

    method: str
    ablation: str
    leaves_out: str  # what the ablation leaves out (its description)
    full: dict[str, float]  # "all", "design", "check" -> the full method's page recall within 5 pages
    delta: dict[str, float]  # the same parts -> ablation minus full (negative: the part left out helps)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def verdict(self) -> Verdict:
        halves = [self.delta[h] for h in HALVES if h in self.delta]
        if halves and all(d < 0 for d in halves):
            return "helps"
        if halves and all(d > 0 for d in halves):
            return "hurts"
        if halves and all(d == 0 for d in halves):
            return "none"
        return "mixed"


def parts_section(effects: Sequence[PartEffect]) -> str:
    """The report's Markdown section; empty when no ablation ran beside its method."""
    if not effects:
        return ""
    lines = ["", "## Does each part help?", "",
             "Page recall within 5 pages: each ablation minus its full method, on the whole set and on its design "
             "and check halves (negative: the part the ablation leaves out helps).", "",
             "| method | ablation | what it leaves out | method's score | Δ all | Δ design | Δ check | part |",
             "|---|---|---|---|---|---|---|---|"]
    for e in effects:
        what = " ".join(e.leaves_out.split()).replace("|", "\\|")
        cells = [f"{e.delta[k]:+.3f}" if k in e.delta else "—" for k in ("all", *HALVES)]
        lines.append(f"| {e.method} | {e.ablation} | {what} | {e.full['all']:.3f} | " + " | ".join(cells)
                     + f" | {e.verdict} |")
    return "\n".join(lines) + "\n"
