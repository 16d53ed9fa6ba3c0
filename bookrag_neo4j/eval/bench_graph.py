"""``bookrag bench graph``: the knowledge graph with basic vs gradient entity resolution, per document, as in
the paper's Figure 6, and a sample of the merges gradient ER made, classified so that they can be checked.

For each PDF the tree is indexed (if it is not already), then the graph is built twice on the same
extractions (the per-node store makes the second build cost only resolution and writes): basic ER, then
gradient ER. Reported per mode: entities, relations, density, components, largest component and its
diameter, GT-Links per entity, and the time of each stage; for gradient ER the ER decisions, the mean Neo4j
time per vector lookup, and its merges by kind:

- ``variant``: the same normalised name (case, plural, punctuation) under another type;
- ``acronym``: one name is the initials of the other;
- ``similar``: neither: a judgement of the scorer (or the LLM), the kind to inspect.
"""

from __future__ import annotations

import random
from pathlib import Path

from pydantic import BaseModel

from ..config import Settings
from ..db.client import Neo4jClient
from ..index.pipeline import Indexer
from ..library.stats import graph_statistics
from ..llm.factory import Models
from ..text.names import is_acronym, normalise


class ErRun(BaseModel):
    """The graph one ER mode left: the figures of the paper's Figure 6, the build's seconds and ER decisions."""

    entities: int
    relations: int
    edges_undirected: int
    density: float
    mean_degree: float
    components: int
    largest_component: int
    largest_component_diameter: int
    gt_links_per_entity: float
    seconds: dict[str, float]
    er: dict[str, float | int]
    llm_usage: dict[str, dict[str, int]]


class MergeSamples(BaseModel):
    """gradient ER's merges by kind (variant, acronym, similar): how many, and a random sample of each."""

    counts: dict[str, int]
    samples: dict[str, list[str]]


class GraphBench(BaseModel):
    """One document: its graph with basic and with gradient ER, the changes, and the merges."""

    document: str
    pages: int
    basic: ErRun
    gradient: ErRun
    entity_change: float  # gradient's entities over basic's, less 1
    density_change: float
    merges: MergeSamples


def merge_kind(a: str, b: str) -> str:
    if normalise(a) == normalise(b):
        return "variant"
    if is_acronym(a, b) or is_acronym(b, a):
        return "acronym"
    return "similar"


async def merge_samples(db: Neo4jClient, doc_key: str, *, per_kind: int = 10, seed: int = 0) -> MergeSamples:
    """Counts of ER merges by kind, with a random sample of each kind."""
    rows = await db.run(
        "MATCH (e:Entity {doc_key: $k}) WHERE size(coalesce(e.merged_from, [])) > 0 "
        "RETURN e.name AS name, e.type AS type, e.merged_from AS merged, e.merges AS merges ORDER BY e.key",
        {"k": doc_key}, read=True)
    pairs: dict[str, list[str]] = {"variant": [], "acronym": [], "similar": []}
    for row in rows:
        for other in row["merged"]:
            pairs[merge_kind(row["name"], other)].append(f"{other} -> {row['name']} ({row['type']})")
        # merged_from lists each name once: the other merges were of the same name, under another type
        same_name = (row["merges"] or 0) - len(row["merged"])
        pairs["variant"] += [f"{row['name']} -> {row['name']} ({row['type']})"] * max(same_name, 0)
    rng = random.Random(seed)
    return MergeSamples(counts={k: len(v) for k, v in pairs.items()},
                        samples={k: rng.sample(v, min(per_kind, len(v))) for k, v in pairs.items()})


async def bench_graph(db: Neo4jClient, settings: Settings, paths: list[Path], *, use_llm: bool = False,
                      samples: int = 10) -> list[GraphBench]:
    models = Models.from_settings(settings)
    rows = []
    for path in paths:
        indexer = Indexer(db, settings, models, use_llm=use_llm)
        tree = await indexer.index(path, embed=False, knowledge_graph=False)
        runs: dict[str, ErRun] = {}
        for mode in ("basic", "gradient"):
            indexer.er_mode = mode
            report = await indexer.build_graph(tree.doc_key)
            stats = await graph_statistics(db, tree.doc_key)
            runs[mode] = ErRun(**stats.model_dump(include=set(ErRun.model_fields)), seconds=report.seconds,
                               er=report.er, llm_usage=report.llm_usage)
        basic, gradient = runs["basic"], runs["gradient"]
        rows.append(GraphBench(
            document=path.name, pages=tree.pages, basic=basic, gradient=gradient,
            entity_change=round(gradient.entities / max(basic.entities, 1) - 1, 4),
            density_change=round(gradient.density / max(basic.density, 1e-12) - 1, 4),
            merges=await merge_samples(db, tree.doc_key, per_kind=samples)))
    return rows
