"""G²-Reader's planning graph (paper §3.3): a DAG of sub-questions, its execution order, and what runs it without a
model (the comparison split and the coverage checker).

    dag = PlanningGraph.from_reply(reply, question, max_nodes=6)    # an LLM's <dag> (E.1), checked
    dag = comparison_dag("Which is larger, revenue in 2019 or 2020?")  # offline: root + one node per side
    dag.order()                                                     # children first: a node sees their answers
    gaps = coverage_gaps(question, evidence_texts)                  # offline checker: question terms not found
    dag = dag.with_gaps(gaps, question, max_nodes=8)                # offline refinement: a node per gap

Edges point from a node to the children it depends on (the paper's and the prompts' convention: the root is
the original question, its children its sub-tasks). The reference code runs Kahn's order from the root, so a
child runs after its parent and the parent never sees its answer; here children run first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from graphlib import CycleError, TopologicalSorter

from pydantic import BaseModel, Field

from ...text.grammar import comparison_split
from ...text.keywords import STOPWORDS, stem

MAX_NODES, MAX_REFINED, MAX_DEPTH = 6, 8, 3  # E.1: at most 6 nodes, depth 3; E.2: at most 8


class PlanNode(BaseModel):
    id: str
    task: str
    type: str = "sub-question"
    children: list[str] = Field(default_factory=list)


class DagReply(BaseModel):
    """The decomposer's reply (prompts E.1 and E.2)."""

    nodes: list[PlanNode]
    edges: list[dict[str, str]] = Field(default_factory=list)


class CheckReply(BaseModel):
    """The evidence checker's reply (prompt E.5)."""

    sufficient: bool
    gaps: list[str] = Field(default_factory=list)


class PlanningGraph(BaseModel):
    """A checked DAG: a root named ``root`` holding the original question, every child known, no cycle."""

    nodes: list[PlanNode]

    @classmethod
    def single(cls, question: str) -> PlanningGraph:
        return cls(nodes=[PlanNode(id="root", task=question, type="question")])

    @classmethod
    def from_reply(cls, reply: DagReply, question: str, *, max_nodes: int) -> PlanningGraph:
        """The reply's DAG, with the edges list merged into ``children`` and the root's task the original
        question; raises ``ValueError`` when it is not a DAG of at most ``max_nodes`` nodes and depth 3."""
        nodes = {n.id: n.model_copy(deep=True) for n in reply.nodes}
        for edge in reply.edges:
            parent, child = edge.get("from"), edge.get("to")
            if parent in nodes and child in nodes and child not in nodes[parent].children:
                nodes[parent].children.append(child)
        if "root" not in nodes:
            raise ValueError("the DAG has no node 'root'")
        nodes["root"] = nodes["root"].model_copy(update={"task": question, "type": "question"})
        dag = cls(nodes=list(nodes.values()))
        dag.check(max_nodes=max_nodes)
        return dag

    def node(self, node_id: str) -> PlanNode:
        return next(n for n in self.nodes if n.id == node_id)

    def check(self, *, max_nodes: int) -> None:
        ids = {n.id for n in self.nodes}
        if len(ids) != len(self.nodes):
            raise ValueError("node ids repeat")
        if len(ids) > max_nodes:
            raise ValueError(f"{len(ids)} nodes, more than {max_nodes}")
        unknown = sorted({c for n in self.nodes for c in n.children} - ids)
        if unknown:
            raise ValueError(f"children {unknown} are not nodes")
        try:
            self.order()
        except CycleError:
            raise ValueError("the graph has a cycle") from None
        if self.depth() > MAX_DEPTH:
            raise ValueError(f"depth {self.depth()}, more than {MAX_DEPTH}")

    def order(self) -> list[str]:
        """Execution order: every node after the children it depends on (ties in the listed order)."""
        sorter = TopologicalSorter({n.id: n.children for n in self.nodes})
        return list(sorter.static_order())

    def depth(self) -> int:
        children = {n.id: n.children for n in self.nodes}

        def down(node_id: str, seen: frozenset[str]) -> int:
            return 1 + max((down(c, seen | {c}) for c in children[node_id] if c not in seen), default=0)

        return down("root", frozenset({"root"}))

    def with_gaps(self, tasks: Sequence[str], *, max_nodes: int = MAX_REFINED) -> PlanningGraph:
        """The offline refinement: a new child of the root per task (at most 3, up to ``max_nodes`` in all)."""
        nodes = [n.model_copy(deep=True) for n in self.nodes]
        root = next(n for n in nodes if n.id == "root")
        used = {n.id for n in nodes}
        for task in list(tasks)[:3]:
            if len(nodes) >= max_nodes:
                break
            node_id = next(f"g{i}" for i in range(1, 100) if f"g{i}" not in used)
            used.add(node_id)
            nodes.append(PlanNode(id=node_id, task=task))
            root.children.append(node_id)
        return PlanningGraph(nodes=nodes)

    def describe(self) -> str:
        """One line: the nodes in execution order, each with what it depends on."""
        return "; ".join(f"{i}{' <- ' + ','.join(self.node(i).children) if self.node(i).children else ''}: "
                         f"{self.node(i).task[:70]}" for i in self.order())


# --- offline decomposition: split a comparison into its sides ---
def comparison_sides(question: str) -> list[str]:
    """The two sides of a comparison question, else []."""
    split = comparison_split(question)
    return [split[1], split[2]] if split else []


def comparison_dag(question: str) -> PlanningGraph:
    """The offline decomposer: a one-level DAG with a sub-question per side of a comparison (the question with
    the pair replaced by that side), else the root alone."""
    split = comparison_split(question)
    if split is None:
        return PlanningGraph.single(question)
    before, first, second, after = split
    nodes = [PlanNode(id="root", task=question, type="question", children=["n1", "n2"])]
    nodes += [PlanNode(id=f"n{i}", task=f"{before.rstrip()} {side}{after}".strip())
              for i, side in enumerate((first, second), 1)]
    return PlanningGraph(nodes=nodes)


# --- offline evidence checker: which of the question's terms the evidence lacks ---
_STRIP = "()[]{}\"'“”‘’?:;!"


def _tokens(text: str) -> list[str]:
    return [t for t in (w.strip(_STRIP).rstrip(".,").strip(_STRIP) for w in text.split()) if t]


def _key(term: str) -> str:
    """How a term is compared: numbers and codes as written (lower case), words by stem."""
    return term.lower() if any(c.isdigit() for c in term) else stem(term.strip("'’"))


def question_terms(question: str) -> list[str]:
    """The question's content terms, once each: those with digits first (years, amounts, codes such as X5), then
    capitalised words, then the rest (stopwords and words under 3 letters dropped)."""
    terms = [t for t in dict.fromkeys(_tokens(question))
             if t.lower() not in STOPWORDS and (len(t) >= 3 or any(c.isdigit() for c in t))]
    return sorted(terms, key=lambda t: (not any(c.isdigit() for c in t), not t[0].isupper()))


def specific_terms(question: str) -> list[str]:
    """The question's terms that name something: with a digit (years, amounts, codes), or capitalised other than
    as its first word (names, acronyms). The coverage checker looks for these; common words ("many",
    "proposed") are in any evidence or in none, and a sub-question for them reads the same passages again."""
    first = next(iter(_tokens(question)), "")
    return [t for t in question_terms(question)
            if any(c.isdigit() for c in t) or (t[0].isupper() and t != first)]


def _present(term: str, text: str) -> bool:
    """Whether lower-cased ``text`` holds the term: as written when it has a digit, else a word that starts with
    its stem ("revenues" for "revenue", "Acme" for "Acme's"); only the question's few terms are stemmed."""
    if any(c.isdigit() for c in term):
        return re.search(rf"(?<!\w){re.escape(term.lower())}(?!\w)", text) is not None
    return re.search(rf"\b{re.escape(_key(term))}", text) is not None


def coverage_gaps(question: str, texts: Sequence[str]) -> list[str]:
    """The question's specific terms that no evidence text contains."""
    text = "\n".join(texts).lower()
    return [t for t in specific_terms(question) if not _present(t, text)]


def gap_task(term: str, question: str) -> str:
    """The sub-question for a missing term: the term with the question's three longest other terms."""
    anchors = sorted((t for t in question_terms(question) if t != term), key=len, reverse=True)[:3]
    return " ".join([term, *anchors])
