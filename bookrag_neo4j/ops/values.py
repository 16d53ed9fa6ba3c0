"""The typed values that flow between operators (each step's output is one of these).

    Question("What does lm fit?", vector=[...])            # Embed
    Entities(names=["lm"], seeds=["<entity key>"])         # Extract
    Selection(keys=["<tree node key>", ...])               # Filter_*, Select_by_*, searches
    Candidates(rows=[...]); Scores(by="text", values={"<key>": 0.8})   # Fetch; Graph_/Text_Reasoning, searches
    Ranking(keys=[...], graph={...}, text={...})           # Skyline_Ranker, Fuse, Rerank (G2_Plan's: a Reading)
    EvidenceSet(nodes=[EvidenceNode(...)], count=None)     # Fetch_Evidence, Merge, Count, baselines
    Partials(answers=[Partial(...)]); Draft(text="...", used=[EvidenceNode(...)])   # Map; Reduce

Each has ``summary()``, the short line the trace shows; a value with ``details()`` adds lines under it (``--explain``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ..retrieval.reasoners import Candidate
from ..retrieval.results import EvidenceGroup, EvidenceNode


@dataclass(frozen=True)
class Question:
    """The question (or a sub-question) and its embedding."""

    text: str
    vector: list[float]

    def summary(self) -> str:
        return f"{len(self.vector)}-d vector"


@dataclass(frozen=True)
class Entities:
    """The question's entities and the graph entities they link to (PageRank seeds)."""

    names: list[str]
    seeds: list[str]

    def summary(self) -> str:
        return f"{len(self.names)} entities {self.names[:5]}, {len(self.seeds)} linked"


@dataclass(frozen=True)
class SubQuestions:
    """Decompose: retrieval sub-questions, then synthesis ones."""

    items: list[dict[str, str]]

    def summary(self) -> str:
        return f"{len(self.items)} sub-questions"


@dataclass(frozen=True)
class NodeFilter:
    """Filter_Modal and Filter_Range constraints, combined (kinds are alternatives, the rest all hold)."""

    kinds: tuple[str, ...] | None = None
    page_from: int | None = None
    page_to: int | None = None
    within: tuple[str, ...] | None = None
    top_sections: bool = False  # "which sections ...": the level-1 sections themselves


@dataclass(frozen=True)
class Selection:
    """Tree-node keys chosen by a selector (in its order), and the filter that chose them, if any; ``note`` says
    how (Text2Cypher: the query that ran)."""

    keys: list[str]
    filter: NodeFilter | None = None
    note: str = ""

    def summary(self) -> str:
        return f"{len(self.keys)} nodes" + (f" ({self.note})" if self.note else "")


@dataclass(frozen=True)
class Candidates:
    rows: list[Candidate]

    @property
    def keys(self) -> list[str]:
        return [r.key for r in self.rows]

    def summary(self) -> str:
        return f"{len(self.rows)} candidates"


@dataclass(frozen=True)
class Scores:
    """One reasoner's score per node key (``by``: "graph" or "text")."""

    by: str
    values: dict[str, float]
    engine: str | None = None  # Graph_Reasoning's PageRank engine: "gds" or "local"
    named: list[str] = field(default_factory=list)  # Text_Reasoning: blocks the question names (figure, page, statement)
    leads: list[str] = field(default_factory=list)  # and the best of each name's blocks (they join the Skyline)

    def summary(self) -> str:
        return (f"{len(self.values)} {self.by} scores" + (f" ({self.engine})" if self.engine else "")
                + (f", {len(self.named)} named first" if self.named else ""))


@dataclass(frozen=True)
class Ranking:
    """Keys best first, with the scores that ranked them."""

    keys: list[str]
    graph: dict[str, float] = field(default_factory=dict)
    text: dict[str, float] = field(default_factory=dict)
    merged: dict[str, list[str]] = field(default_factory=dict)  # a key -> the keys on its pages, shown with it

    def summary(self) -> str:
        extra = sum(len(v) for v in self.merged.values())
        return f"{len(self.keys)} kept" + (f" (+{extra} on their pages)" if extra else "")


@dataclass(frozen=True)
class EvidenceSet:
    """Evidence nodes best first; a global COUNT's number; multi-hop groups (per sub-question)."""

    nodes: list[EvidenceNode]
    count: int | None = None
    groups: list[EvidenceGroup] = field(default_factory=list)
    counted: int | None = None  # a COUNT's first nodes that were counted (cited); the rest is context
    count_by_document: dict[str, int] = field(default_factory=dict)  # a COUNT's number per document key, most first

    def summary(self) -> str:
        return f"{len(self.nodes)} evidence nodes" + (f", count {self.count}" if self.count is not None else "")

    def led_by(self, doc_key: str | None) -> EvidenceSet:
        """The same evidence with ``doc_key``'s nodes first, each part in its order (a count's order is kept: its
        first nodes are those counted)."""
        if doc_key is None or self.count is not None:
            return self
        return replace(self, nodes=[n for n in self.nodes if n.doc_key == doc_key] +
                       [n for n in self.nodes if n.doc_key != doc_key])


@dataclass(frozen=True)
class Partial:
    """Map: a partial answer and the evidence it used (node keys)."""

    answer: str
    keys: list[str]


@dataclass(frozen=True)
class Partials:
    answers: list[Partial]

    def summary(self) -> str:
        return f"{len(self.answers)} partial answers"


@dataclass(frozen=True)
class Draft:
    """Reduce: the answer and the evidence it cites; ``extractive`` when no LLM wrote it."""

    text: str
    used: Sequence[EvidenceNode]
    extractive: bool = False

    def summary(self) -> str:
        return f"{len(self.text)} characters, {len(self.used)} sources" + (" (extractive)" if self.extractive else "")


Value = Question | Entities | SubQuestions | Selection | Candidates | Scores | Ranking | EvidenceSet | Partials | Draft
"""What a step outputs (G2_Plan's Reading, :mod:`.g2`, is a Ranking)."""
