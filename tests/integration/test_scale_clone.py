"""Clones of an indexed document (``bookrag bench scale --clone``) against the real server: each is a complete
copy under new keys (every node and property, every relationship, the links to the shared keywords), retrieval
over a clone returns its source's evidence (keys mapped) in this process and in ``bookrag retrieve``, a clone
left half-made is made again, a larger library's clones are dropped, and ``--drop-clones`` restores the
database's counts exactly. (The measured curve: ``test_scale_curve.py``.)"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import AsyncIterator

import pytest

from bookrag_neo4j.config import Settings
from bookrag_neo4j.db.client import ConnectionInfo, Neo4jClient
from bookrag_neo4j.eval.scale_clone import (
    NODE_LABELS,
    check_source,
    clone_key,
    document_shape,
    grow_library,
    list_clones,
)
from bookrag_neo4j.index.pipeline import Indexer
from bookrag_neo4j.keys import key_prefix
from bookrag_neo4j.library.catalogue import delete_document
from bookrag_neo4j.library.documents import Document, get_document
from bookrag_neo4j.llm import Models
from bookrag_neo4j.methods import Retriever

from ..helpers.cli import run_cli
from ..helpers.pdfs import R_DATA, excerpt
from ..helpers.timeouts import LONG_TEST

pytestmark = pytest.mark.timeout(LONG_TEST)

QUESTIONS = ("How do I read a spreadsheet into R?", "What does read.table do with missing values?")
METHODS = ("bookrag", "superrag", "g2")  # the tree and knowledge graph; the layout layer; the content graph

# Every node of a document with its labels and properties, and every relationship from its nodes (test-only
# inspection; the product's queries are in cypher/).
NODES = """
MATCH (n) WHERE n.doc_key = $doc OR (n:Document AND n.key = $doc)
RETURN n.key AS key, labels(n) AS labels, properties(n) AS props
"""
RELATIONSHIPS = """
MATCH (n)-[r]->(m) WHERE n.doc_key = $doc OR (n:Document AND n.key = $doc)
RETURN n.key AS source, type(r) AS type, properties(r) AS props, m.key AS target
"""
COUNTS = """
CALL () { MATCH (n) UNWIND labels(n) AS label RETURN collect(label) AS labels }
CALL () { MATCH ()-[r]->() RETURN collect(type(r)) AS types }
RETURN labels, types
"""


@pytest.fixture(scope="module")
async def source(conn: ConnectionInfo, settings: Settings, offline_models: Models, schema,
                 tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Document]:
    """Twelve pages of R-data.pdf indexed with every layer (tree, knowledge graph, layout layer, content graph)."""
    pdf = excerpt(R_DATA, tmp_path_factory.mktemp("clone") / "r-data-12.pdf", 1, 12)
    async with Neo4jClient(conn) as client:
        report = await Indexer(client, settings, offline_models, use_llm=False).index(pdf)
        assert report.graph and report.layout and report.content_graph
        doc = await get_document(client, report.doc_key)
        assert doc is not None and doc.status == "complete"
        yield doc
        for clone in await list_clones(client):
            await delete_document(client, clone.key)
        await delete_document(client, doc.key)


def remap(value: object, source: str, clone: str) -> object:
    """A source's property value as its clone must hold it."""
    if isinstance(value, str) and (value == source or value.startswith(key_prefix(source) + "-")):
        return key_prefix(clone) + value[16:]
    if isinstance(value, list):
        return [remap(v, source, clone) for v in value]
    return value


async def database_counts(db: Neo4jClient) -> tuple[Counter, Counter]:
    (row,) = await db.run(COUNTS)
    return Counter(row["labels"]), Counter(row["types"])


def evidence_of(evidence: object, doc_key: str) -> list[tuple]:
    """Evidence as comparable rows, its keys without the document's prefix."""
    return [(n.key.removeprefix(key_prefix(doc_key)), n.kind, n.text, n.pages, round(n.graph_score, 6),
             round(n.text_score, 6), n.doc_key == doc_key) for n in evidence.nodes]  # type: ignore[attr-defined]


async def test_clones_are_complete_copies_under_new_keys(db: Neo4jClient, settings: Settings,
                                                         offline_models: Models, source: Document) -> None:
    before = await database_counts(db)
    made = await grow_library(db, [source], documents=4)
    assert [(c.number, c.reused) for c in made] == [(1, False), (2, False), (3, False)]
    assert [c.name for c in await list_clones(db)] == [f"CLONE-{n:04d}-{source.name}" for n in (1, 2, 3)]
    expected = await check_source(db, source)
    assert expected.labels["Entity"] > 0 and expected.labels["Passage"] > 0 and expected.labels["ContentNode"] > 0
    assert expected.outgoing.get("HAS_KEYWORD shared", 0) > 0 and expected.outgoing["RELATED own"] > 0

    source_nodes = {r["key"]: r for r in await db.run(NODES, {"doc": source.key})}
    source_edges = await db.run(RELATIONSHIPS, {"doc": source.key})
    assert {label for r in source_nodes.values() for label in r["labels"]} - {"Document"} <= set(NODE_LABELS)
    for report in made:
        key = report.key
        assert key == clone_key(source.key, report.number) and await document_shape(db, key) == expected
        nodes = {r["key"]: r for r in await db.run(NODES, {"doc": key})}
        assert len(nodes) == len(source_nodes) == report.nodes
        for old, row in source_nodes.items():
            copy = nodes[remap(old, source.key, key)]  # type: ignore[index]
            assert sorted(copy["labels"]) == sorted(row["labels"])
            want = {p: remap(v, source.key, key) for p, v in row["props"].items()}
            if "Document" in row["labels"]:
                want |= {"name": report.name, "clone_of": source.key, "clone_number": report.number,
                         "clone_status": "complete"}
            assert copy["props"] == want, old
        edges = await db.run(RELATIONSHIPS, {"doc": key})
        keywords = {r["target"] for r in source_edges if r["type"] == "HAS_KEYWORD"}
        assert sorted((r["source"], r["type"], r["target"], sorted(r["props"].items())) for r in edges) == sorted(
            (remap(r["source"], source.key, key), r["type"],
             r["target"] if r["target"] in keywords else remap(r["target"], source.key, key),
             sorted({p: remap(v, source.key, key) for p, v in r["props"].items()}.items())) for r in source_edges)
        assert len(edges) == report.relationships

    after = await database_counts(db)
    for label, count in before[0].items():  # every label but the shared ones grew by three copies
        assert after[0][label] == count + (3 * expected.labels.get(label, 0)), label
    retriever = Retriever(db, settings, offline_models, use_llm=False)
    clone = made[1]
    for method in METHODS:
        for question in QUESTIONS:
            own = await retriever.retrieve(question, [source.key], method=method)
            copied = await retriever.retrieve(question, [clone.key], method=method)
            assert own.nodes, (method, question)
            assert evidence_of(copied, clone.key) == evidence_of(own, source.key), (method, question)
            assert {n.document for n in copied.nodes} == {clone.name}

    # the command line: a new process asked about the clone, by its name
    cli = [run_cli(settings, "retrieve", QUESTIONS[0], "--doc", name, "--no-llm", "--json")
           for name in (source.name, clone.name)]
    assert all(r.returncode == 0 for r in cli), [r.stderr[-500:] for r in cli]
    own, copied = (json.loads(r.stdout)["evidence"] for r in cli)
    assert own and [(n["key"][16:], n["text"], n["pages"]) for n in copied] == [
        (n["key"][16:], n["text"], n["pages"]) for n in own]

    # --drop-clones: the database as it was, label by label and type by type
    dropped = run_cli(settings, "bench", "scale", "--drop-clones")
    assert dropped.returncode == 0 and "dropped 3 clones" in dropped.stdout + dropped.stderr, dropped.stderr[-500:]
    assert await database_counts(db) == before and await list_clones(db) == []


async def test_a_half_made_clone_is_made_again_and_a_larger_library_s_are_dropped(db: Neo4jClient,
                                                                                  source: Document) -> None:
    before = await database_counts(db)
    await grow_library(db, [source], documents=3)
    (first, second) = await list_clones(db)
    # an interrupted copy: the second clone's Document and half its nodes, nothing else
    await db.run("MATCH (d:Document {key: $key}) SET d.clone_status = 'copying'", {"key": second.key})
    await db.run("MATCH (n:TreeNode {doc_key: $key}) WITH n SKIP 10 DETACH DELETE n", {"key": second.key})
    again = await grow_library(db, [source], documents=3)
    assert [(c.number, c.reused) for c in again] == [(1, True), (2, False)]
    assert await document_shape(db, second.key) == await check_source(db, source)
    assert [c.clone_status for c in await list_clones(db)] == ["complete", "complete"]

    smaller = await grow_library(db, [source], documents=2)  # clone 2 belongs to a larger library
    assert [(c.number, c.reused) for c in smaller] == [(1, True)]
    assert [c.key for c in await list_clones(db)] == [first.key]
    assert await db.run("MATCH (n:TreeNode {doc_key: $key}) RETURN count(n) AS n", {"key": second.key}) == [
        {"n": 0}]
    await grow_library(db, [source], documents=1)
    assert await list_clones(db) == [] and await database_counts(db) == before

