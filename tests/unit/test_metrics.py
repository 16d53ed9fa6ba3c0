"""Evaluation metrics on hand-made cases with known values."""

from __future__ import annotations

import pytest

from bookrag_neo4j.eval.metrics import (
    anls,
    exact_match,
    financebench_score,
    inclusion,
    mmlongbench_score,
    normalise_answer,
    page_recall,
    token_f1,
)


def test_normalisation_exact_match_inclusion_and_f1() -> None:
    assert normalise_answer("The  Paris, France!") == "paris france"
    assert exact_match("The Paris.", "paris") == 1.0 and exact_match("Lyon", "Paris") == 0.0
    assert inclusion("It is Paris, I think", "paris") == 1.0 and inclusion("Parisian", "paris") == 0.0
    assert token_f1("net sales of 10 billion", "10 billion") == pytest.approx(2 * (2 / 5) * 1 / (2 / 5 + 1))  # P 2/5, R 1
    assert token_f1("", "") == 1.0 and token_f1("x", "") == 0.0 and token_f1("a b", "c") == 0.0


def test_anls() -> None:
    assert anls("Pre-training", "pre training") == 1.0
    assert anls("pretraining", "pre training") == pytest.approx(1 - 1 / 12)  # one edit in twelve characters
    assert anls("cat", "dog") == 0.0  # similarity below 0.5 counts as 0


@pytest.mark.parametrize(("prediction", "gold", "fmt", "score"), [
    ("9", "9", "Int", 1.0), ("There are 9 icons.", "9", "Int", 1.0), ("9.5", "9", "Int", 0.0), ("8", "9", "Int", 0.0),
    ("18.3", "18.29%", "Float", 1.0), ("18.0", "18.29%", "Float", 0.0), ("$1,577.00", "1577", "Float", 1.0),
    ("['POPQA', 'SST-2', 'MS MARCO']", "['POPQA', 'MS MARCO', 'SST-2']", "List", 1.0),
    ("POPQA and SST-2", "['POPQA', 'MS MARCO', 'SST-2']", "List", 0.0),
    ("no leans who are male", "no leans who are male", "Str", 1.0),
])
def test_mmlongbench_rules(prediction: str, gold: str, fmt: str, score: float) -> None:
    assert mmlongbench_score(prediction, gold, fmt) == pytest.approx(score)


def test_financebench_and_page_recall() -> None:
    assert financebench_score("The capex was $1,577 million.", "$1577.00") == 1.0
    assert financebench_score("0.65", "0.66") == 0.0  # 1.5% off: outside the 1% tolerance
    assert financebench_score("The company is not capital intensive", "No, the company is not capital intensive") == 1.0
    assert page_recall({3, 5}, [[3], [4, 5]]) == 1.0
    assert page_recall({3, 5}, [[1], [3], [5]], budget=2) == 0.5
    assert page_recall({9, 10}, []) == 0.0 and page_recall(set(), [[1]]) == 0.0


async def test_answer_extraction_and_judge_with_a_scripted_model() -> None:
    from bookrag_neo4j.eval.answers import extract_answer, judge_answer
    from bookrag_neo4j.llm.scripted import ScriptedChatModel

    llm = ScriptedChatModel([
        '{"extracted_answer": 18.29, "answer_format": "Float"}',
        '```json\n{"extracted_answer": ["Adam", "SGD"], "answer_format": "List"}\n```',  # fenced: repaired
        "no json here", "still none",  # invalid twice (the re-ask too): the response is scored as written
        '{"correct": true, "reason": "same number"}',
        "nonsense", "nonsense",
    ])
    response = "Net sales rose to $18.29 billion [2]."
    assert await extract_answer(llm, "Net sales?", response, answer_format="Float") == "18.29"
    assert mmlongbench_score("18.29", "18.3", "Float") == 1.0 and exact_match(response, "18.29") == 0.0
    assert await extract_answer(llm, "Optimisers?", "Adam and SGD [1]", answer_format="List") == '["Adam", "SGD"]'
    assert mmlongbench_score('["Adam", "SGD"]', "['SGD', 'Adam']", "List") == 1.0
    assert await extract_answer(llm, "q", response) == response
    assert "Requested format: (any)" in llm.requests[2][-1]["content"]
    assert await extract_answer(None, "q", response) == response  # no LLM: as written
    assert await judge_answer(llm, "Net sales?", "18.3", response) is True
    assert await judge_answer(llm, "Net sales?", "18.3", response) is None  # a failed judge abstains


def test_page_recall_within_a_page_budget() -> None:
    from bookrag_neo4j.eval.metrics import page_recall_within

    assert page_recall_within({3, 5}, [[3], [4, 5]], pages=2) == 0.5   # pages 3, 4 read; 5 is the third
    assert page_recall_within({3, 5}, [[3], [4, 5]], pages=3) == 1.0
    assert page_recall_within({9}, [[9, 1, 2]], pages=2) == 0.0        # a unit's pages are read in page order
    assert page_recall_within({2}, [[2], [2], [2]], pages=1) == 1.0    # repeated pages cost nothing
    assert page_recall_within(set(), [[1]], pages=5) == 0.0
