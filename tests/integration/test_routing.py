"""A question over more documents than BOOKRAG_ROUTE_DOCUMENTS reads only the best placed ones, chosen by the
library's vector and full-text indexes in one query; the trace's Route step names them; a smaller scope is read
whole."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bookrag_neo4j.db.client import Neo4jClient
from bookrag_neo4j.library.cards import DocumentCard
from bookrag_neo4j.library.documents import Document
from bookrag_neo4j.retrieval.routing import ROUTE, Routing, route
from bookrag_neo4j.sdk import BookRAG

from ..helpers.pdfs import tiny_pdf
from ..helpers.timeouts import LONG_TEST


async def test_the_blocks_that_rank_best_choose_the_documents(db: Neo4jClient, dimensions, schema) -> None:
    axis = [[1.0 if i == j else 0.0 for i in range(dimensions)] for j in range(4)]
    texts = ["quartz zebra harbour tariffs", "plain words", "other plain words", "more plain words"]
    for i, (text, vector) in enumerate(zip(texts, axis, strict=True)):
        await db.run("CREATE (n:TreeNode:Text {key: $doc + '-b', doc_key: $doc, kind: 'text', order: 0, text: $text}) "
                        "WITH n CALL db.create.setNodeVectorProperty(n, 'embedding', $vector)",
                        {"doc": f"test-route-{i}", "text": text, "vector": vector})
    documents = [Document(key=f"test-route-{i}", name=f"doc{i}.pdf") for i in range(4)]
    # the words lead to doc0, the vector to doc2: both are kept, the words' and the vector's first
    routing = await route(db, documents, "Which quartz zebra tariffs?", axis[2], keep=2)
    assert {d.key for d in routing.documents} == {"test-route-0", "test-route-2"}
    (step,) = routing.steps
    assert step.operator == ROUTE and step.output.startswith("2 of 4 documents") and len(step.details) == 2
    # a scope within the limit is read whole, with no step
    assert await route(db, documents[:2], "Which quartz?", axis[2], keep=2) == Routing(documents[:2])
    # neither index finds a block of the scope: the first by name are read
    none = [Document(key="test-route-none-a", name="a.pdf"), Document(key="test-route-none-b", name="b.pdf"),
            Document(key="test-route-none-c", name="c.pdf")]
    assert (await route(db, none, "quartz", axis[0], keep=2)).documents == none[:2]



async def test_a_document_scores_per_square_root_of_its_size_and_more_when_its_year_is_named(
        db: Neo4jClient, dimensions, schema) -> None:
    """Blocks at ranks 1 and 3 (big, 400 tree nodes) against 2 and 4 (small, 100): the big one's fused score is
    higher, the small one's per square root of its size; a year the question names on a card doubles its score."""
    axis = [0.0] * (dimensions - 1) + [1.0]  # a direction the other tests' vectors do not take
    for name, size, similarities in (("big", 400, (0.99, 0.97)), ("small", 100, (0.98, 0.96))):
        await db.run("CREATE (:Document {key: $doc, name: $doc, tree_nodes: $size})", {"doc": f"test-size-{name}",
                                                                                          "size": size})
        for i, cosine in enumerate(similarities):
            vector = [0.0] * (dimensions - 2) + [(1 - cosine ** 2) ** 0.5, cosine]
            await db.run("CREATE (n:TreeNode:Text {key: $doc + $i, doc_key: $doc, kind: 'text', order: 0, "
                            "text: 'zz'}) WITH n CALL db.create.setNodeVectorProperty(n, 'embedding', $vector)",
                            {"doc": f"test-size-{name}", "i": str(i), "vector": vector})
    ranked = await db.read_rows("retrieval/route_documents", doc_keys=["test-size-big", "test-size-small"],
                                   vector=axis, query="nowordhere", top=4, k=60)
    assert [key for key, _ in ranked] == ["test-size-small", "test-size-big"]
    library = [Document(key="test-size-big", name="big.pdf", card=DocumentCard(years=[2019])),
               Document(key="test-size-small", name="small.pdf", card=DocumentCard(years=[2021])),
               Document(key="test-size-none", name="none.pdf")]
    routing = await route(db, library, "What changed in FY2019?", axis, keep=1)
    assert [d.name for d in routing.documents] == ["big.pdf"] and "(its period is named)" in routing.steps[0].details[0]
    assert routing.lead is None  # 2 × 0.0323 / 20 against 0.0318 / 10: close
    routing = await route(db, library, "What changed?", axis, keep=1)
    assert [d.name for d in routing.documents] == ["small.pdf"] and routing.lead is None  # 0.0318 / 10, 0.0323 / 20
    routing = await route(db, library, "What changed in 2021?", axis, keep=1)
    assert routing.lead == "test-size-small" and "(leads: 2× the next or more)" in routing.steps[0].details[0]

@pytest.fixture
async def two(settings, offline_models, schema, tmp_path: Path) -> AsyncIterator[tuple[BookRAG, list[str]]]:
    rag = BookRAG(settings.replace(llm_provider="none", route_documents=1), models=offline_models,
                  use_llm=False)
    keys = [(await rag.aindex(tiny_pdf(tmp_path / f"{org}.pdf", org, person, country, thing))).doc_key
            for org, person, country, thing in (("Acme", "Ada Quill", "France", "widgets"),
                                                ("Borealis", "Bo Strand", "Norway", "turbines"))]
    yield rag, keys
    for key in keys:
        await rag.adelete(key)
    await rag.aclose()


@pytest.mark.timeout(LONG_TEST)
async def test_a_question_over_more_documents_reads_the_routed_ones(two: tuple[BookRAG, list[str]]) -> None:
    rag, (acme, borealis) = two
    evidence = await rag.aretrieve("How many turbines did Borealis ship in Norway?", [acme, borealis])
    route_step = next(step for step in evidence.trace if step.operator == ROUTE)
    assert route_step.output.startswith("1 of 2 documents") and route_step.details[0].startswith("Borealis.pdf")
    assert evidence.nodes and {n.doc_key for n in evidence.nodes} == {borealis}
    one = await rag.aretrieve("How many turbines did Borealis ship in Norway?", [acme])  # one document: not routed
    assert not any(step.operator == ROUTE for step in one.trace) and {n.doc_key for n in one.nodes} == {acme}


@pytest.mark.timeout(LONG_TEST)
async def test_a_global_question_reads_every_document(two: tuple[BookRAG, list[str]]) -> None:
    rag, keys = two
    evidence = await rag.aretrieve("How many sections does each document have?", keys)
    assert evidence.plan.category == "global" and not any(step.operator == ROUTE for step in evidence.trace)
    assert {n.doc_key for n in evidence.nodes} == set(keys)
