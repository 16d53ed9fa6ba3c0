"""The ``graphdatascience`` client on the SDK's connection (``rag.gds``): a real document's entity graph projected
with the counts Cypher gives, algorithms over it (Louvain, PageRank, the entity table), and the projection dropped
when its block ends, also on error; the async twin; ``rag.gds`` outliving the sync calls until ``close()``."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator

import pytest

from bookrag_neo4j import BookRAG
from bookrag_neo4j.db.analytics import aentity_graph, entity_graph
from bookrag_neo4j.db.gds import DOCUMENT_PREFIX, GRAPH_NAME_PREFIX
from bookrag_neo4j.errors import DocumentError

from ..helpers.pdfs import FOOTLOCKER, need

# The document's entities, their edges among each other (each stored once, directed) and each entity's GT-Links
# by top-level section: what the projection and the entity table must agree with.
COUNTS = """
MATCH (d:Document {name: $doc})
MATCH (e:Entity {doc_key: d.key})
RETURN e.key AS key,
       COUNT { (e)-[:RELATED|CONTAINED_IN]->(:Entity {doc_key: d.key}) } AS out,
       COUNT { (e)-[:RELATED|CONTAINED_IN]-(:Entity {doc_key: d.key}) } AS degree,
       COUNT { (e)-[:MENTIONED_IN]->() } AS mentions,
       [(e)-[:MENTIONED_IN]->(:TreeNode)<-[:HAS_CHILD*0..]-(c:Section WHERE c.depth = 1) | [c.order, c.title]] AS chapters
"""


@pytest.fixture(scope="module")
def rag(settings, neo4j_server, schema, offline_models) -> Iterator[BookRAG]:
    """The SDK on the test server with FOOTLOCKER indexed LLM-free, graph included (a no-op when it is)."""
    rag = BookRAG(settings, models=offline_models, use_llm=False)
    report = rag.index(need(FOOTLOCKER))
    assert rag.document(report.doc_key).graph_counts.entities > 0
    yield rag
    rag.close()


def home_chapter(chapters: list[list]) -> str | None:
    """The top-level section with most of an entity's GT-Links, the earlier one on a tie."""
    if not chapters:
        return None
    counts = Counter((order, title) for order, title in chapters)
    return min(counts, key=lambda c: (-counts[c], c[0]))[1]


def bookrag_graphs(rag: BookRAG) -> list[str]:
    """The SDK's projections still in the catalog (Graph_Reasoning's kept document projections are not theirs:
    questions asked by other tests leave those on purpose)."""
    return [g.graph_name for g in rag.gds.graph.list()
            if g.graph_name.startswith(GRAPH_NAME_PREFIX) and not g.graph_name.startswith(DOCUMENT_PREFIX)]


def test_entity_graph_projects_the_documents_entities_and_is_dropped(rag: BookRAG) -> None:
    rows = rag.run_cypher(COUNTS, {"doc": FOOTLOCKER.name})
    with rag.entity_graph(FOOTLOCKER.name) as G:
        name = G.name()
        assert name.startswith(GRAPH_NAME_PREFIX) and rag.gds.graph.exists(name)
        assert G.node_count() == len(rows)
        assert G.relationship_count() == 2 * sum(r["out"] for r in rows)  # undirected: both directions
        assert G.node_labels() == ["Entity"] and set(G.relationship_types()) == {"RELATED", "CONTAINED_IN"}
        communities = rag.gds.louvain.stream(G, relationship_weight_property="weight")
        ranks = rag.gds.page_rank.stream(G, relationship_weight_property="weight")
        entities = rag.entity_table(G)
    assert not rag.gds.graph.exists(name) and bookrag_graphs(rag) == []

    # every entity once in each result, joined on nodeId
    assert sorted(communities.nodeId) == sorted(ranks.nodeId) == sorted(entities.nodeId)
    assert entities.nodeId.is_unique and len(entities) == len(rows)
    assert 1 < communities.communityId.nunique() < len(rows) and (ranks.score > 0).all()
    by_key = {r["key"]: r for r in rows}
    assert set(entities.key) == set(by_key)
    for entity in entities.itertuples():
        expected = by_key[entity.key]
        assert (entity.degree, entity.mentions) == (expected["degree"], expected["mentions"]), entity
        chapter = None if entity.chapter != entity.chapter else entity.chapter  # pandas gives NaN for a null
        assert chapter == home_chapter(expected["chapters"]), entity  # None: mentioned before any chapter
    assert entities.chapter.notna().sum() > len(rows) / 2


def test_entity_graph_is_dropped_when_the_block_raises(rag: BookRAG) -> None:
    with pytest.raises(RuntimeError, match="boom"), rag.entity_graph(FOOTLOCKER.name) as G:
        name = G.name()
        assert rag.gds.graph.exists(name)
        raise RuntimeError("boom")
    assert not rag.gds.graph.exists(name) and bookrag_graphs(rag) == []


def test_a_document_without_entities_is_a_clear_error(rag: BookRAG) -> None:
    with pytest.raises(DocumentError, match="no entities: build its knowledge graph"):
        with entity_graph(rag.gds, "test-gds-client-nothing"):
            pass
    assert bookrag_graphs(rag) == []


def test_gds_outlives_the_sync_calls_until_close(settings, offline_models, rag: BookRAG) -> None:
    gds = rag.gds
    rag.documents()  # a sync call closes the async driver after itself, not the GDS client
    assert rag.gds is gds and gds.graph.list() is not None
    other = BookRAG(settings, models=offline_models, use_llm=False)
    first = other.gds
    other.close()  # closes it (a closed client retries for minutes: not called here); the next use opens another
    assert other.gds is not first and other.gds.graph.list() is not None
    other.close()


async def test_the_async_twin_projects_and_drops(settings, offline_models, rag: BookRAG) -> None:
    async with BookRAG(settings, models=offline_models, use_llm=False) as arag:
        async with arag.aentity_graph(FOOTLOCKER.name) as G:
            name, nodes = G.name(), await asyncio.to_thread(G.node_count)
            ranks = await asyncio.to_thread(arag.gds.page_rank.stream, G)
        assert sorted(ranks.nodeId.unique()) == sorted(ranks.nodeId) and len(ranks) == nodes > 0
        assert not await asyncio.to_thread(arag.gds.graph.exists, name)
    assert arag._gds is None


async def test_a_cancelled_async_projection_is_dropped(rag: BookRAG) -> None:
    """Cancelled while GDS projects (on a worker thread, which cannot be stopped): the projection is dropped
    once made, before the cancellation reaches the caller; none appears later."""
    key = rag.document(FOOTLOCKER.name).key

    async def hold() -> None:
        async with aentity_graph(rag.gds, key):
            await asyncio.sleep(60)

    task = asyncio.create_task(hold())
    await asyncio.sleep(0)  # the task is now waiting for the projection
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert bookrag_graphs(rag) == []  # dropped before the cancellation reached us
    await asyncio.sleep(2)  # a projection left running on its thread would have appeared by now
    assert bookrag_graphs(rag) == []
