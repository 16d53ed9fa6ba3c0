"""Follow-up questions in a conversation, through the SDK, the JSON API and the ask page: a follow-up that names
no document reads the documents the last answer cited; with an LLM it is read with the history (the rewrite
prompt) and the answer says how (``asked_as``). Two small PDFs, indexed once for the module (LLM-free)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import AsyncIterator

import httpx
import pytest

from bookrag_neo4j.config import Settings
from bookrag_neo4j.errors import ModelError
from bookrag_neo4j.llm import Models, ScriptedChatModel
from bookrag_neo4j.retrieval.results import Evidence, Turn
from bookrag_neo4j.sdk import BookRAG
from bookrag_neo4j.web import create_app

from ..helpers.pdfs import outlined_pdf
from ..helpers.timeouts import LONG_TEST
from ..helpers.webapp import serving

pytestmark = pytest.mark.timeout(LONG_TEST)

GARDENS = "followup-gardens.pdf"
HARBOUR = "followup-harbour.pdf"
FIRST = "How many visitors came to the botanical gardens?"
FOLLOW = "What do they plan next year?"  # names nothing: "they" are the conversation's gardens
REWRITTEN = "What do the botanical gardens plan next year?"


@pytest.fixture(scope="module")
async def library(settings: Settings, offline_models: Models, schema,
                  tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[tuple[BookRAG, dict[str, str]]]:
    folder = tmp_path_factory.mktemp("followups")
    gardens = outlined_pdf(folder / GARDENS, [
        (1, "1 Visitors", ["The botanical gardens welcomed 48,000 visitors this year.",
                           "Most visitors came in the spring."]),
        (1, "2 Plans", ["Next year the gardens plan a new glasshouse for tropical plants."]),
    ])
    harbour = outlined_pdf(folder / HARBOUR, [
        (1, "1 Traffic", ["The harbour handled 1,200 ships this year."]),
        (1, "2 Plans", ["Next year the harbour plans a longer pier and a new crane."]),
    ])
    rag = BookRAG(settings.replace(llm_provider="none"), models=offline_models, use_llm=False)
    keys = {pdf.name: (await rag.aindex(pdf, knowledge_graph=False, layout=False)).doc_key for pdf in (gardens, harbour)}
    yield rag, keys
    for key in keys.values():
        await rag.adelete(key)
    await rag.aclose()


def _documents(found: Evidence) -> set[str]:
    return {n.citation.document for n in found.evidence}


async def test_a_follow_up_reads_the_documents_the_last_answer_cited(library) -> None:
    rag, keys = library
    first = await rag.aask(FIRST, GARDENS, method="bm25")
    assert first.turn().documents == [keys[GARDENS]] and "48,000" in first.text
    follow = await rag.aretrieve(FOLLOW, method="bm25", history=[first.turn()])
    assert follow.evidence and _documents(follow) == {GARDENS}
    (route,) = [s for s in follow.trace if s.operator == "Route"]
    assert route.output.endswith("by the conversation") and route.details == [
        f"{GARDENS}: cited by the conversation's last answer"]
    named = await rag.aretrieve(FOLLOW, HARBOUR, method="bm25", history=[first.turn()])  # a named document wins
    assert _documents(named) == {HARBOUR}
    alone = await rag.aretrieve(FOLLOW, [GARDENS, HARBOUR], method="bm25")  # no history: both read
    assert _documents(alone) == {GARDENS, HARBOUR}


async def test_with_an_llm_the_follow_up_is_read_with_the_history(library, offline_models: Models) -> None:
    rag, keys = library

    def reply(messages: list[dict[str, str]]) -> str:
        if "Follow-up question:" in messages[-1]["content"]:
            return f'{{"question": "{REWRITTEN}"}}'
        raise ModelError("this test scripts the follow-up's rewrite only")  # every other step falls back

    llm = ScriptedChatModel(reply, max_retries=0)
    talking = BookRAG(rag.settings, models=dataclasses.replace(offline_models, llm=llm), use_llm=True)
    try:
        history = [Turn(question=FIRST, answer="48,000 visitors came [1].", documents=[keys[GARDENS]])]
        answer = await talking.aask(FOLLOW, method="bm25", history=history)
    finally:
        await talking.aclose()
    assert answer.question == FOLLOW and answer.asked_as == REWRITTEN and answer.plan.question == REWRITTEN
    rewrite = [m[-1]["content"] for m in llm.requests if "Follow-up question:" in m[-1]["content"]]
    assert len(rewrite) == 1 and f"1. Q: {FIRST}" in rewrite[0] and "A: 48,000 visitors came [1]." in rewrite[0]
    assert {c.document for c in answer.citations} == {GARDENS} and "glasshouse" in " ".join(
        n.text for n in answer.evidence)


async def test_the_page_and_the_api_carry_a_conversation(library, settings: Settings, offline_models: Models) -> None:
    rag, keys = library
    app = create_app(settings, models=offline_models, use_llm=False)
    with serving(app) as base, httpx.Client(base_url=base, timeout=60) as web:
        page = web.get("/ask", params={"question": FIRST, "doc": keys[GARDENS], "method": "bm25"})
        assert page.status_code == 200, page.text
        conversation = re.search(r'name="conversation" value="([^"]+)"', page.text).group(1)
        assert 'name="turn" value="1"' in page.text and "Follow up" in page.text
        follow = web.get("/ask", params={"question": FOLLOW, "method": "bm25", "conversation": conversation,
                                         "turn": 1})
        assert follow.status_code == 200 and "Earlier in this conversation" in follow.text
        assert FIRST in follow.text and 'name="turn" value="2"' in follow.text
        cited = re.findall(r'<h3 class="document">([^<]+?) <span', follow.text)
        assert cited == [GARDENS], cited
        again = web.get("/ask", params={"question": FOLLOW, "method": "bm25", "conversation": conversation,
                                        "turn": 1})  # a reload asks again from the same turn
        assert 'name="turn" value="2"' in again.text
        lost = web.get("/ask", params={"question": FOLLOW, "method": "bm25", "conversation": "forgotten",
                                       "turn": 3})  # a restarted server's id: a new conversation
        assert lost.status_code == 200 and "Earlier in this conversation" not in lost.text
        assert 'name="turn" value="1"' in lost.text

        body = {"question": FOLLOW, "method": "bm25", "top_k": 3,
                "history": [{"question": FIRST, "answer": "48,000 visitors.", "documents": [keys[GARDENS]]}]}
        asked = web.post("/api/ask", json=body)
        assert asked.status_code == 200, asked.text
        assert {c["document"] for c in asked.json()["citations"]} == {GARDENS}
        found = web.post("/api/retrieve", json=body).json()
        assert set(found["pages"]) == {GARDENS}
        bad = web.post("/api/ask", json=body | {"history": [{"answer": "no question"}]})
        assert bad.status_code == 400 and "history" in bad.json()["error"]
