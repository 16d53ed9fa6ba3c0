"""Evidence operators: Fetch_Evidence (what is shown and cited, for a ranking or a selection), Count (a
global question's number), Merge (the evidence of a multi-hop question's sub-questions, in groups).

    Skyline_Ranker -> Fetch_Evidence                     # ranked tree nodes with both scores
    Filter_Modal -> Count                                # count = every match; evidence = the first N
    Filter_Modal, Fetch, Fetch_Evidence -> Count         # evidence = the ranked matches, then context
    q0.evidence, q1.evidence -> Merge(questions=[...])    # one EvidenceSet with a group per sub-question
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..keys import key_prefix
from ..library.documents import Document
from ..retrieval import subtrees
from ..retrieval.results import EvidenceGroup, EvidenceNode
from ..retrieval.subtrees import NodeRow
from .operator_registry import NoParams, RunContext, operator
from .values import Candidates, EvidenceSet, Ranking, Selection


def evidence_node(row: NodeRow, graph_score: float = 0.0, text_score: float = 0.0) -> EvidenceNode:
    """An evidence node from a ``retrieval/nodes`` or ``layout/units`` row."""
    return EvidenceNode(
        key=row.key, doc_key=row.doc_key, document=row.document, kind=row.kind, title=row.title or "",
        text=row.text or "", page_start=row.page_start or 0, page_end=row.page_end or 0,
        section_path=row.section_path or "", bbox=row.bbox, order=row.order or 0,
        graph_score=graph_score, text_score=text_score,
    )


def _unit(rows: dict[str, NodeRow], key: str, ranking: Ranking) -> EvidenceNode:
    """The evidence node of a ranked key, with the nodes merged into it (on its pages) after it in reading
    order: one unit, cited by its first node."""
    node = evidence_node(rows[key], ranking.graph.get(key, 0.0), ranking.text.get(key, 0.0))
    parts = sorted([node, *(evidence_node(rows[k]) for k in ranking.merged.get(key, []) if k in rows)],
                   key=lambda n: n.order)
    if len(parts) == 1:
        return node
    pages = sorted({page for part in parts for page in part.pages})
    text = "\n\n".join(part.text if part is node or part.kind == "text" else f"{part.title}\n{part.text}".strip()
                       for part in parts)
    return node.model_copy(update={"text": text, "page_list": pages, "page_start": pages[0], "page_end": pages[-1]})


async def fetch_units(ctx: RunContext, keys: Sequence[str], unit: str) -> dict[str, NodeRow]:
    """Rows to show and cite, by key: tree nodes (``node``), or the layout layer's passages and table rows with
    tree nodes for the other keys (``layout``)."""
    if unit == "layout":
        rows = await ctx.db.read_rows_as(NodeRow, "layout/units", keys=list(keys))
        found = {r.key for r in rows}
        rows += await subtrees.fetch_nodes(ctx.db, [k for k in keys if k not in found])
    else:
        rows = await subtrees.fetch_nodes(ctx.db, keys)
    return {r.key: r for r in rows}


class FetchParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    unit: Literal["node", "layout"] = "node"
    limit: int | None = Field(None, ge=1)  # a selection's first N nodes (default: global_max_nodes)


@operator("Fetch_Evidence", family="evidence", params=FetchParams)
async def fetch_evidence(ctx: RunContext, p: FetchParams, ranking: Ranking | None,
                         selection: Selection | None) -> EvidenceSet:
    """The units of a ranking (in its order, with its scores) or the first of a selection (reading order)."""
    if ranking is not None:
        merged = [k for key in ranking.keys for k in ranking.merged.get(key, [])]
        rows = await fetch_units(ctx, [*ranking.keys, *merged], p.unit)
        return EvidenceSet(nodes=[_unit(rows, k, ranking) for k in ranking.keys if k in rows])
    if selection is None:
        raise ValueError("Fetch_Evidence reads a Ranking or a Selection")
    keys = selection.keys[:p.limit or ctx.settings.bookrag.global_max_nodes]
    return EvidenceSet(nodes=[evidence_node(r) for r in await subtrees.fetch_nodes(ctx.db, keys)])


def per_document(documents: Sequence[Document], keys: Sequence[str]) -> dict[str, int]:
    """How many of ``keys`` (tree-node keys, which start with their document's key prefix) each document holds,
    by document key, most first; empty when a key belongs to none of ``documents``."""
    owner = {key_prefix(d.key): d.key for d in documents}
    found = Counter(owner.get(key_prefix(k), "") for k in keys)
    return {} if "" in found else dict(found.most_common())


@operator("Count", family="evidence")
async def count(ctx: RunContext, p: NoParams, selection: Selection, evidence: EvidenceSet | None,
                candidates: Candidates | None) -> EvidenceSet:
    """How many nodes the filters selected (answered without an LLM), and how many in each document, with the
    first of them as evidence; or with the ``evidence`` ranked from the ``candidates`` the filters' Fetch read: the
    counted nodes ranked, then those that are no content block (the sections a "how many chapters" counts) in
    reading order, then the context a filled Fetch ranked after them (shown, not cited)."""
    limit = ctx.settings.bookrag.global_max_nodes
    parts = per_document(ctx.documents, selection.keys)
    if evidence is None:
        return EvidenceSet(nodes=[evidence_node(r) for r in await subtrees.fetch_nodes(ctx.db, selection.keys[
            :limit])], count=len(selection.keys), count_by_document=parts)
    selected, read = set(selection.keys), set(candidates.keys) if candidates is not None else set()
    ranked = [n for n in evidence.nodes if n.key in selected]
    shown = read | {n.key for n in ranked}
    unread = [k for k in selection.keys if k not in shown][:max(0, limit - len(ranked))]
    counted = [*ranked, *(evidence_node(r) for r in await subtrees.fetch_nodes(ctx.db, unread))]
    return EvidenceSet(nodes=[*counted, *(n for n in evidence.nodes if n.key not in selected)],
                       count=len(selection.keys), counted=len(counted), count_by_document=parts)


class MergeParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    questions: list[str]  # the sub-question of each input, in ``after`` order


@operator("Merge", family="evidence", params=MergeParams)
async def merge(ctx: RunContext, p: MergeParams, parts: list[EvidenceSet]) -> EvidenceSet:
    """The sub-questions' evidence taken in turn (each one's best, then each one's second, ...), each node once
    at its first turn, and grouped by sub-question: a reader of the first nodes sees every sub-question's best."""
    if len(parts) != len(p.questions):
        raise ValueError(f"Merge has {len(parts)} inputs for {len(p.questions)} questions")
    nodes: dict[str, EvidenceNode] = {}
    for rank in range(max((len(part.nodes) for part in parts), default=0)):
        for part in parts:
            if rank < len(part.nodes):
                nodes.setdefault(part.nodes[rank].key, part.nodes[rank])
    groups = [EvidenceGroup(question=q, keys=[n.key for n in part.nodes])
              for q, part in zip(p.questions, parts, strict=True)]
    return EvidenceSet(nodes=list(nodes.values()), groups=groups)
