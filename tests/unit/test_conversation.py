"""Follow-up questions: the rewrite with the history in the prompt, the documents a follow-up carries, the web
app's conversation store."""

from __future__ import annotations

import json

from bookrag_neo4j.errors import TransientModelError
from bookrag_neo4j.llm import ScriptedChatModel
from bookrag_neo4j.retrieval.conversation import MAX_TURNS, carried_documents, history_text, standalone
from bookrag_neo4j.retrieval.results import Answer, Citation, Turn
from bookrag_neo4j.web.conversations import Conversations

FIRST = Turn(question="What was Best Buy's revenue in fiscal 2023?", answer="Revenue was $46.3 billion [1]. " * 40,
             documents=["bby-key"])


async def test_the_llm_reads_the_history_and_the_follow_up_becomes_a_question_of_its_own() -> None:
    llm = ScriptedChatModel(['{"question": "What was Best Buy\'s net income in fiscal 2023?"}'])
    asked = await standalone(llm, [FIRST], "And its net income?")
    assert asked == "What was Best Buy's net income in fiscal 2023?"
    (messages,) = llm.requests
    prompt = messages[-1]["content"]
    assert "1. Q: What was Best Buy's revenue in fiscal 2023?" in prompt and "Follow-up question: And its net" in prompt
    assert "A: Revenue was $46.3 billion [1]." in prompt and len(prompt) < 1500  # each answer's start only


async def test_without_an_llm_history_or_a_good_reply_the_follow_up_is_asked_as_written() -> None:
    assert await standalone(None, [FIRST], "And in 2022?") == "And in 2022?"
    assert await standalone(ScriptedChatModel([]), [], "And in 2022?") == "And in 2022?"  # not asked: no history
    broken = ScriptedChatModel(["not json"] * 3 + [TransientModelError("down")] * 9, max_retries=0)
    assert await standalone(broken, [FIRST], "And in 2022?") == "And in 2022?"


def test_only_the_last_turns_are_read() -> None:
    turns = [Turn(question=f"question {n}") for n in range(MAX_TURNS + 3)]
    text = history_text(turns)
    assert "question 2\n" not in text + "\n" and "question 3" in text and text.count("Q: ") == MAX_TURNS
    assert "A: (no answer)" in text


def test_a_follow_up_carries_the_documents_the_last_answer_cited() -> None:
    assert carried_documents([]) == []
    silent = Turn(question="Anything on page 400?", documents=[])
    assert carried_documents([FIRST, silent]) == ["bby-key"]  # the last turn that cited any
    both = Turn(question="Compare them", documents=["a", "b", "a"])
    assert carried_documents([FIRST, both]) == ["a", "b"]


def test_an_answer_becomes_a_turn_with_its_cited_documents_once_each() -> None:
    cite = [Citation(document=f"{d}.pdf", doc_key=d, node_key=f"{d}-{n}") for d, n in (("a", 1), ("b", 2), ("a", 3))]
    turn = Answer(question="Q?", text="A.", citations=cite).turn()
    assert turn == Turn(question="Q?", answer="A.", documents=["a", "b"])
    assert json.loads(turn.model_dump_json())["documents"] == ["a", "b"]


def test_the_store_records_each_turn_at_its_position_and_forgets_the_oldest_conversation() -> None:
    talks = Conversations(limit=2)
    first = talks.known("")
    assert first and talks.turns(first) == [] and talks.known(first) == first
    assert talks.record(first, 0, FIRST) == 1
    assert talks.record(first, 1, Turn(question="And its net income?")) == 2
    assert talks.record(first, 1, Turn(question="And its margin?")) == 2  # the page asked again from turn 1
    assert [t.question for t in talks.turns(first)] == [FIRST.question, "And its margin?"]
    assert talks.known("made-up") != "made-up"  # an unknown id (a restarted server): a new conversation
    talks.known("another")
    assert talks.turns(first) == []  # the least recently used of three, over the limit of two
    for n in range(MAX_TURNS + 2):
        talks.record("long", n, Turn(question=f"q{n}"))
    assert len(talks.turns("long")) == MAX_TURNS
