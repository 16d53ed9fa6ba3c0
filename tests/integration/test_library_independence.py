"""A document's entity resolution and BookRAG retrieval do not depend on the library around it: index one
document, record its ER merges, its offline Select_by_Section and what BookRAG retrieves from it for several
questions; add a near-copy (the same sentences and names) and documents made to collide with it (blocks and
entities embedded exactly like the questions and their entities); rebuild its graph and ask again: nothing
changed. A lookup that asked a vector index for the library's top k and kept the document's rows afterwards
fails this: the colliding blocks and entities fill the top k."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bookrag_neo4j.config import Settings
from bookrag_neo4j.db.client import Neo4jClient
from bookrag_neo4j.index.pipeline import Indexer
from bookrag_neo4j.kg.build import GraphBuilder
from bookrag_neo4j.library.catalogue import delete_document
from bookrag_neo4j.library.documents import get_document
from bookrag_neo4j.llm import Models
from bookrag_neo4j.methods import Retriever
from bookrag_neo4j.retrieval import subtrees
from bookrag_neo4j.retrieval.document_blocks import block_similarities, document_blocks
from bookrag_neo4j.retrieval.reasoners import MAX_TEXT_CHARS
from bookrag_neo4j.text.offline_extract import SpacyExtractor

from ..helpers.pdfs import tiny_pdf
from ..helpers.timeouts import LONG_TEST

pytestmark = pytest.mark.timeout(LONG_TEST)

TOPIC = ("Harbour Authority of Lisbon", "Maria Costa", "Portugal", "cargo")
COPIES = 8  # x 10 blocks a question and 10 entities a name: more than any top k the index was asked for
QUESTIONS = ("Who leads the Harbour Authority of Lisbon?", "How much cargo was shipped in 2021?",
             "Who reports to the board in London?", "Which bank does Ms Costa of the Lisbon port work with?")


@pytest.fixture
async def keys(db: Neo4jClient) -> AsyncIterator[list[str]]:
    made: list[str] = []
    yield made
    for key in made:
        await delete_document(db, key)


async def snapshot(db: Neo4jClient, retriever: Retriever, doc_key: str) -> dict:
    doc = await get_document(db, doc_key)
    entities = await db.run("MATCH (e:Entity {doc_key: $d}) RETURN e.key AS key, e.merged_from AS merged "
                               "ORDER BY key", {"d": doc_key})
    answers = {}
    for question in QUESTIONS:
        vector = (await retriever.models.embedder.embed([question]))[0]
        blocks = await document_blocks(db, doc, max_chars=MAX_TEXT_CHARS)  # the offline Select_by_Section:
        near = await subtrees.subtrees_near(db, blocks.nearest(await block_similarities(db, doc, blocks, vector),
                                                                   3), top=3)
        evidence = await retriever.retrieve(question, [doc_key], method="bookrag")
        answers[question] = (sorted(near), evidence.seeds, [(n.key, round(n.graph_score, 6),
                                                              round(n.text_score, 6)) for n in evidence.nodes])
    return {"merges": doc.graph_counts.model_dump(), "entities": entities, "answers": answers}


async def collide(db: Neo4jClient, models: Models, copies: int) -> None:
    """Documents made to collide: blocks whose embedding is each question's own, and entities whose embedding
    is each question entity's (the best any lookup can find), many more than a vector index's top k."""
    vectors = await models.embedder.embed(list(QUESTIONS))
    names = sorted({e for q in QUESTIONS for e in await question_names(q)})
    name_vectors = await models.embedder.embed(names) if names else []
    for i in range(copies):
        doc = f"test-collide-{i}"
        await db.run("UNWIND range(0, size($vectors) * 10 - 1) AS j "
                        "CREATE (:TreeNode:Text {key: $doc + '-b' + j, doc_key: $doc, kind: 'text', order: j, "
                        "text: 'copy', page_start: 1, page_end: 1, embedding: $vectors[j % size($vectors)]})",
                        {"doc": doc, "vectors": vectors})
        await db.run("UNWIND range(0, size($names) * 10 - 1) AS j "
                        "CREATE (:Entity {key: $doc + '-e' + j, doc_key: $doc, name: $names[j % size($names)], "
                        "type: 'ORG', name_key: 'x' + j + '|ORG', embedding: $vectors[j % size($names)]})",
                        {"doc": doc, "names": names, "vectors": name_vectors})


async def question_names(question: str) -> list[str]:
    (extraction,) = await SpacyExtractor().extract([question])
    return [e.name for e in extraction.entities]


async def test_a_document_answers_the_same_in_any_library(db: Neo4jClient, settings: Settings,
                                                          offline_models: Models, tmp_path: Path, keys) -> None:
    indexer = Indexer(db, settings, offline_models, use_llm=False)
    alone = await indexer.index(tiny_pdf(tmp_path / "original.pdf", *TOPIC), layout=False, content_graph=False)
    keys.append(alone.doc_key)
    retriever = Retriever(db, settings, offline_models, use_llm=False)
    before = await snapshot(db, retriever, alone.doc_key)
    assert all(near for near, _, _ in before["answers"].values()) and any(s for _, s, _ in before["answers"].values())

    copy = await indexer.index(tiny_pdf(tmp_path / "copy.pdf", *TOPIC[:3], "containers"), layout=False,
                               content_graph=False)  # a near-copy: the same sentences and names
    keys.append(copy.doc_key)
    await collide(db, offline_models, COPIES)
    await GraphBuilder(db, settings, offline_models, use_llm=False).build(alone.doc_key, force=True)  # ER again
    assert await snapshot(db, retriever, alone.doc_key) == before
