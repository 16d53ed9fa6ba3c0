"""Gradient entity resolution on a hand-made BookIndex in a real Neo4j: scripted extractor, scorer and judge,
so every decision is known in advance; merges re-point relations and GT-Links; basic ER as the baseline."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from bookrag_neo4j.config import Settings
from bookrag_neo4j.db.client import Neo4jClient
from bookrag_neo4j.index.store import write_tree
from bookrag_neo4j.kg.build import GraphBuilder
from bookrag_neo4j.kg.er_scores import EntityView
from bookrag_neo4j.library.catalogue import delete_document
from bookrag_neo4j.library.stats import graph_statistics
from bookrag_neo4j.llm import Models
from bookrag_neo4j.llm.reranker import FusionReranker
from bookrag_neo4j.llm.scripted import ScriptedChatModel
from bookrag_neo4j.parsing.blocks import Block, ParsedDocument
from bookrag_neo4j.text.extraction import ExtractedEntity, ExtractedRelation, Extraction
from bookrag_neo4j.tree.build import build_tree

from ..helpers.models import NearbyEmbedder, ScriptedExtractor


class ScriptedScorer:
    """Scores chosen by the test: (new name, candidate name) -> score, else 0.1."""

    fingerprint = "scripted"

    def __init__(self, scores: dict[tuple[str, str], float]) -> None:
        self.scores = scores
        self.asked: list[tuple[str, list[str]]] = []

    async def score(self, new: EntityView, candidates: Sequence[EntityView]) -> list[float]:
        self.asked.append((new.name, [c.name for c in candidates]))
        return [self.scores.get((new.name, c.name), 0.1) for c in candidates]


def concept(name: str) -> ExtractedEntity:
    return ExtractedEntity(name=name, type="CONCEPT", description=f"about {name}")


def related(a: str, b: str, weight: float = 1.0) -> ExtractedRelation:
    return ExtractedRelation(source=a, target=b, description=f"{a} ~ {b}", weight=weight)


# Five text blocks, in reading order. The scores and judge replies below decide what each entity becomes.
PASSAGES = {
    "p1": Extraction(entities=[concept("Large Language Model"), concept("Retrieval")],
                     relations=[related("Large Language Model", "Retrieval", 2)]),
    "p2": Extraction(entities=[concept("LLM"), concept("Retrieval")],          # clear alias -> merge
                     relations=[related("LLM", "Retrieval", 3)]),
    "p3": Extraction(entities=[concept("Knowledge Graph"), concept("Graph Database")]),
    "p4": Extraction(entities=[concept("Vector Index")]),                    # no sharp drop -> new
    "p5": Extraction(entities=[concept("KG"), concept("Agent")],              # several kept -> the judge
                     relations=[related("KG", "Agent", 1)]),
}
SCORES = {
    ("LLM", "Large Language Model"): 0.95, ("LLM", "Retrieval"): 0.2,
    ("Vector Index", "Large Language Model"): 0.62, ("Vector Index", "Retrieval"): 0.58,
    ("Vector Index", "Knowledge Graph"): 0.6, ("Vector Index", "Graph Database"): 0.55,
    ("KG", "Knowledge Graph"): 0.9, ("KG", "Graph Database"): 0.8,  # both kept, then a drop: judge
    ("Agent", "Large Language Model"): 0.85, ("Agent", "Vector Index"): 0.8,  # judge says: none of them
}


def judge(messages: list[dict]) -> str:
    """The scripted LLM: ER judgements, and description summaries."""
    text = messages[-1]["content"]
    if messages[0]["content"].startswith("Several passages"):
        return json.dumps({"description": "summary of " + text.splitlines()[0].removeprefix("Entity: ")})
    if text.startswith("New entity:\nKG"):
        ids = {line.split(":")[0].removeprefix("id ").strip(): line for line in text.splitlines() if line.startswith("id ")}
        pick = next(i for i, line in ids.items() if "Knowledge Graph" in line)
        return json.dumps({"select_id": int(pick), "explanation": "KG abbreviates Knowledge Graph"})
    return json.dumps({"select_id": -1, "explanation": "not the same"})


async def write_doc(db: Neo4jClient, name: str) -> str:
    blocks = [Block("text", text, page=i + 1) for i, text in enumerate(PASSAGES)]
    parsed = ParsedDocument(Path(f"{name}.pdf"), f"test-{hashlib.sha256(name.encode()).hexdigest()}", name, 5,
                            blocks=blocks)
    tree = build_tree(parsed, [], "heuristic")
    await delete_document(db, tree.doc_key)
    await write_tree(db, tree, parsed, {"name": f"{name}.pdf", "title": name})
    return tree.doc_key


@pytest.fixture
def builder_for(db: Neo4jClient, settings: Settings, dimensions: int, schema, tmp_path):
    def make(mode: str = "gradient", llm: ScriptedChatModel | None = None) -> tuple[GraphBuilder, ScriptedScorer]:
        embedder = NearbyEmbedder(dimensions)
        models = Models(llm=llm, vlm=None, embedder=embedder, reranker=FusionReranker(embedder))
        scorer = ScriptedScorer(SCORES)
        local = settings.replace(cache_dir=tmp_path, er_summarize_after=2)
        return GraphBuilder(db, local, models, er_mode=mode, scorer=scorer,
                            extractor=ScriptedExtractor(PASSAGES)), scorer
    return make


async def entities(db: Neo4jClient, doc_key: str) -> dict[str, dict]:
    rows = await db.run(
        "MATCH (e:Entity {doc_key: $k}) OPTIONAL MATCH (e)-[:MENTIONED_IN]->(n:TreeNode) "
        "RETURN e.name AS name, e.aliases AS aliases, e.merges AS merges, collect(n.text) AS nodes", {"k": doc_key})
    return {r["name"]: r for r in rows}


async def test_gradient_er_decisions_and_repointing(db: Neo4jClient, builder_for) -> None:
    doc_key = await write_doc(db, "er-gradient")
    llm = ScriptedChatModel(judge)
    builder, scorer = builder_for("gradient", llm)
    report = await builder.build(doc_key)
    found = await entities(db, doc_key)
    # a clear alias merges; the no-gradient set stays new; the judge merges KG and keeps Agent new
    assert set(found) == {"Large Language Model", "Retrieval", "Knowledge Graph", "Graph Database", "Vector Index",
                          "Agent"}
    assert found["Large Language Model"]["aliases"] == ["LLM"] and found["Large Language Model"]["merges"] == 1
    assert found["Knowledge Graph"]["aliases"] == ["KG"]
    assert report.er["merge"] == 1 and report.er["judge-merge"] == 1 and report.er["judge-new"] == 1
    assert report.er["exact"] == 1 and report.er["new"] >= 4 and report.er["merges"] == 2
    # the judge is asked only for the two several-kept cases; the two entities with two descriptions are summarised
    assert len(llm.requests) == 4
    described = {r["name"]: r["d"] for r in await db.run(
        "MATCH (e:Entity {doc_key: $k}) RETURN e.name AS name, e.description AS d", {"k": doc_key})}
    assert described["Large Language Model"] == "summary of Large Language Model (CONCEPT)"
    assert described["Retrieval"] == "about Retrieval"  # one distinct description: kept as it is
    # entities of the same node are not candidates of each other; "LLM" saw the entities of p1 only
    assert ("LLM", ["Large Language Model", "Retrieval"]) in [(n, sorted(c)) for n, c in scorer.asked]
    # GT-Links united: the canonical entity points at the nodes of both names
    assert sorted(found["Large Language Model"]["nodes"]) == ["p1", "p2"]
    assert sorted(found["Knowledge Graph"]["nodes"]) == ["p3", "p5"]
    # relations re-pointed to the canonical keys, one edge per pair, weights summed (2 + 3)
    rels = await db.run(
        "MATCH (a:Entity {doc_key: $k})-[r:RELATED]->(b) RETURN a.name AS a, b.name AS b, r.weight AS w", {"k": doc_key})
    pairs = {frozenset((r["a"], r["b"])): r["w"] for r in rels}
    assert pairs == {frozenset(("Large Language Model", "Retrieval")): 5.0, frozenset(("Knowledge Graph", "Agent")): 1.0}
    stats = await graph_statistics(db, doc_key)
    assert stats.entities == 6 and stats.relations == 2 and stats.er_merges == 2
    assert stats.components == 4 and stats.largest_component == 2 and stats.largest_component_diameter == 1
    assert stats.gt_links == 9  # 2 + 2 + 2 (two names each) + 1 + 1 + 1


async def test_rebuild_is_idempotent_and_basic_er_is_the_baseline(db: Neo4jClient, builder_for) -> None:
    doc_key = await write_doc(db, "er-basic")
    builder, _ = builder_for("gradient", ScriptedChatModel(judge))
    first = await builder.build(doc_key)
    again = await builder.build(doc_key)
    assert again.status == "unchanged" and again.entities == first.entities == 6
    forced = await builder.build(doc_key, force=True)
    assert forced.status == "built" and (await graph_statistics(db, doc_key)).entities == 6
    basic, _ = builder_for("basic")
    report = await basic.build(doc_key)  # a different configuration rebuilds
    assert report.status == "built" and report.er["merges"] == 0
    names = set(await entities(db, doc_key))
    assert {"LLM", "KG", "Agent", "Large Language Model"} <= names and len(names) == 8
    await delete_document(db, doc_key)
    left = await db.run("MATCH (n) WHERE n.doc_key = $k OR n.key = $k RETURN count(n) AS n", {"k": doc_key})
    assert left[0]["n"] == 0
