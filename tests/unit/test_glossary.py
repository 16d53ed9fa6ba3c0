"""The glossary that decomposes a question naming financial metrics without an LLM
(``bookrag_neo4j/retrieval/glossary.py``), and the planner that uses it."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from bookrag_neo4j.config import Settings
from bookrag_neo4j.errors import ConfigurationError
from bookrag_neo4j.llm.scripted import ScriptedChatModel
from bookrag_neo4j.methods import METHODS
from bookrag_neo4j.ops.evidence import MergeParams, merge
from bookrag_neo4j.ops.operator_registry import RunContext
from bookrag_neo4j.ops.reason import named
from bookrag_neo4j.ops.values import EvidenceSet, Question
from bookrag_neo4j.retrieval.document_blocks import BlockRow, read_blocks
from bookrag_neo4j.retrieval.glossary import MAX_ITEMS, Glossary
from bookrag_neo4j.retrieval.planner import Planner, understand
from bookrag_neo4j.retrieval.results import EvidenceNode

SHIPPED = Glossary.load("shipped")


@pytest.mark.parametrize(("question", "subs"), [
    ("What is ROA for ADBE in FY2015?", ["What is net income for ADBE in FY2015?",
                                         "What is total assets for ADBE in FY2015?"]),
    ("What is total debt to total assets for Costco in FY2021?", ["What is total debt for Costco in FY2021?",
                                                                 "What is total assets for Costco in FY2021?"]),
    ("What was the EBITDA margin?", ["What was the operating income margin?",  # "ebitda margin" is no term
                                     "What was the depreciation and amortization margin?"]),
    ("What is the effective tax rate in 2017?", ["What is the provision for income taxes in 2017?",
                                                 "What is the income before income taxes in 2017?"]),
    ("What was PepsiCo's net revenue in 2021?", []),  # one line item: nothing to decompose
    ("How many cats are in the images on page 1?", []),
    ("How much did it pay out in cash dividends in 2022?", []),  # "cash" qualifies: one item, dividends
    ("What is the ebitda-to-sales trend?", []),  # a hyphenated compound is not the word
])
def test_a_question_naming_metrics_becomes_one_question_per_line_item(question: str, subs: list[str]) -> None:
    assert SHIPPED.sub_questions(question) == subs


def test_items_come_once_in_order_and_at_most_four() -> None:
    items, span = SHIPPED.items("Compare the current ratio, working capital and quick ratio of 2021.")
    assert items == ["total current assets", "total current liabilities", "cash and cash equivalents",
                     "accounts receivable"]
    assert span == (12, 58)
    assert len(SHIPPED.sub_questions("Compare the cash conversion cycle and ROE.")) == MAX_ITEMS


def test_a_term_s_spaces_and_hyphens_may_be_either_or_neither() -> None:
    fcf = ["net cash provided by operating activities", "capital expenditures"]
    for question in ("What was free cash flow?", "What was free cashflow?", "What was free-cash-flow?"):
        assert SHIPPED.items(question)[0] == fcf
    assert SHIPPED.items("What was longterm debt?")[0] == ["longterm debt"]  # a line item: the question's words
    assert "statements of cash flows" in SHIPPED.titles("Using the cashflow statement, what was capex?")
    assert SHIPPED.items("What was cash flowing in?")[0] == []  # still whole words


def test_a_statement_named_gives_the_titles_it_goes_by() -> None:
    assert SHIPPED.titles("Basing your judgments off of the balance sheet, what were accounts payable?")[:2] == [
        "balance sheet", "statement of financial position"]
    assert "statements of operations" in SHIPPED.titles("Using the statement of income, what was net income?")
    assert "statements of cash flows" in SHIPPED.titles("Within the cash flow statement, what was capex?")
    assert SHIPPED.titles("What is the sheet metal's balance?") == []
    # a line item names the statement that reports it; a metric, those of its parts
    roa = SHIPPED.titles("What is Amazon's FY2017 return on assets?")
    assert "statements of operations" in roa and "balance sheet" in roa and "statements of cash flows" not in roa
    assert SHIPPED.titles("What were capital expenditures in 2021?") == [
        "statement of cash flows", "statements of cash flows", "cash flow statement"]


def test_another_glossary_or_none(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    path.write_text(json.dumps({"entries": [{"terms": ["MTBF"], "parts": ["operating time", "failures"]}]}))
    assert Glossary.load(str(path)).sub_questions("What is the pump's MTBF?") == [
        "What is the pump's operating time?", "What is the pump's failures?"]
    assert Glossary.load(str(path)).titles("Based on the balance sheet?") == []  # no statements in that file
    assert Glossary.load("").sub_questions("What is ROA?") == []
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ConfigurationError, match="BOOKRAG_GLOSSARY"):
        Glossary.load(str(tmp_path / "bad.json"))


async def test_without_an_llm_the_planner_decomposes_by_the_glossary() -> None:
    planner = Planner(glossary=SHIPPED)
    seen = await understand("What is Amazon's FY2017 return on assets?", planner)
    assert (seen.category, seen.classified_by) == ("multi-hop", "glossary")
    assert [s.question for s in seen.sub_questions] == [  # the question itself first
        "What is Amazon's FY2017 return on assets?", "What is Amazon's FY2017 net income?",
        "What is Amazon's FY2017 total assets?"]
    plan = await METHODS["bookrag"].plan("What is Amazon's FY2017 return on assets?", planner)
    assert plan.step("merge").params["questions"][1] == "What is Amazon's FY2017 net income?"
    assert sum(s.operator == "Skyline_Ranker" for s in plan.steps) == 3
    # a given category (the no-plan ablation), an LLM's decomposition, or no glossary: not decomposed by it
    assert (await understand("What is the ROA?", planner, category="single-hop")).sub_questions == []
    assert (await understand("What is the ROA?", Planner())).category == "single-hop"
    llm = ScriptedChatModel(lambda messages: json.dumps({"category": "single-hop"}))
    assert (await understand("What is the ROA?", Planner(llm, SHIPPED))).classified_by == "llm"


async def test_merge_takes_each_sub_questions_evidence_in_turn() -> None:
    def part(*keys: str) -> EvidenceSet:
        return EvidenceSet(nodes=[EvidenceNode(key=k, doc_key="d", document="d.pdf", kind="text") for k in keys])

    parts = [part("1", "2", "3"), part("2", "4"), part("5")]
    merged = await merge(None, MergeParams(questions=["q", "a", "b"]), parts)  # type: ignore[arg-type]
    assert [n.key for n in merged.nodes] == ["1", "2", "5", "4", "3"]  # each node once, at its best turn
    assert [g.keys for g in merged.groups] == [["1", "2", "3"], ["2", "4"], ["5"]]


def test_the_reasoners_name_the_statements_of_the_packs_of_the_documents_kind() -> None:
    rows = [BlockRow(key="k1", doc_key="d", order=1, kind="text", section_path="Item 8", title="",
                     text="CONSOLIDATED BALANCE SHEETS", page_start=1, page_end=1),
            BlockRow(key="k2", doc_key="d", order=2, kind="table", section_path="Item 8", title="",
                     text="| Total assets | 1,000 |", page_start=1, page_end=1)]
    question = Question(text="Based on the balance sheet, what were total assets?", vector=[])
    filing, paper = (SimpleNamespace(key="d", card=SimpleNamespace(kind=kind)) for kind in ("10-K", "paper"))

    def ctx(**settings: str) -> RunContext:
        return RunContext(db=None, settings=Settings(**settings), models=None, llm=None,  # type: ignore[arg-type]
                          documents=[filing])  # type: ignore[list-item]
    assert named(ctx(), filing, read_blocks(rows), question) == ["k2"]  # type: ignore[arg-type]
    assert named(ctx(), paper, read_blocks(rows), question) == []  # type: ignore[arg-type]  # finance: filings
    assert named(ctx(domains=""), filing, read_blocks(rows), question) == []  # type: ignore[arg-type]


async def test_the_best_table_of_each_statement_named_is_kept() -> None:
    """Two statements named: each one's best table leads (joins the Skyline), though the cash flow statement's
    beats the income statement's on both scores."""
    from bookrag_neo4j.ops import reason
    from bookrag_neo4j.ops.values import Candidates
    from bookrag_neo4j.retrieval.reasoners import Candidate

    def row(order: int, text: str, kind: str) -> BlockRow:
        return BlockRow(key=f"k{order}", doc_key="d", order=order, kind=kind, section_path="Item 8", title="",
                        text=text, page_start=order, page_end=order)

    blocks = read_blocks([row(1, "Consolidated Statements of Operations", "text"), row(2, "| Revenue | 9 |", "table"),
                          row(3, "Consolidated Statements of Cash Flows", "text"), row(4, "| D&A | 1 |", "table"),
                          row(5, "Unrelated text", "text")])

    async def held(doc: object) -> object:
        return blocks

    ctx = SimpleNamespace(settings=Settings(skyline_min=1, skyline_max=10), documents=[SimpleNamespace(key="d")],
                          blocks=held, glossary=lambda doc=None: Glossary.load("shipped"))
    question = Question(text="From the P&L statement and the statement of cash flows, what is D&A margin?", vector=[])
    text = await reason.named_first(ctx, question, {"k2": 0.2, "k4": 0.5, "k5": 0.9})  # type: ignore[arg-type]
    assert text.named == ["k2", "k4"] and text.leads == ["k2", "k4"]
    graph = reason.Scores(by="graph", values={"k2": 0.1, "k4": 0.9, "k5": 0.0})
    candidates = Candidates(rows=[Candidate(key=k, doc_key="d", order=i, title="", section_path="", text=k)
                                  for i, k in enumerate(["k2", "k4", "k5"])])
    ranking = await reason.skyline_ranker(ctx, None, candidates, [graph, text])  # type: ignore[arg-type]
    assert ranking.keys[:2] == ["k4", "k2"]  # k2, dominated by k4, is kept
