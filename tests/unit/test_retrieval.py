"""Skyline dominance, backfill and cap; the planner: its heuristics, a scripted LLM per category, a failed reply,
a given category; entity linking and PageRank on an in-memory entity graph. (Operators on a hand-built
BookIndex in Neo4j: ``tests/integration/test_retrieval.py``.)"""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from bookrag_neo4j.config import Settings
from bookrag_neo4j.errors import LayerMissingError, PlanError
from bookrag_neo4j.library.documents import Document
from bookrag_neo4j.library.layers import layout_config
from bookrag_neo4j.llm.scripted import ScriptedChatModel
from bookrag_neo4j.methods import METHODS
from bookrag_neo4j.ops.reason import by_best_row
from bookrag_neo4j.ops.skyline import fused_scores, pareto_front, skyline
from bookrag_neo4j.ops.values import Question
from bookrag_neo4j.retrieval.entity_graph import EntityGraph, EntityRow, best_first
from bookrag_neo4j.retrieval.planner import Planner, counts_filtered, heuristic_category, heuristic_global_plan
from bookrag_neo4j.retrieval.reasoners import Candidate, pagerank_on
from bookrag_neo4j.retrieval.subtrees import SectionRow, match_section_title
from bookrag_neo4j.retrieval.units import _table_rows
from bookrag_neo4j.text.lexical import LexicalStats, bm25_scores


def test_skyline_against_a_hand_computed_front() -> None:
    points = [("a", 0.9, 0.1), ("b", 0.2, 0.8), ("c", 0.1, 0.1), ("d", 0.5, 0.5), ("e", 0.5, 0.4), ("f", 0.5, 0.5)]
    assert pareto_front(points) == ["a", "d", "f", "b"]  # e is dominated by d; c by everything; d and f tie
    # competition ranks, graph: a 1, d e f 2, b 5, c 6; text: b 1, d f 2, e 4, a c 5 (k = 60)
    fused = fused_scores(points)
    assert fused["d"] == fused["f"] == pytest.approx(2 / 62)
    assert fused["a"] == fused["b"] == pytest.approx(1 / 61 + 1 / 65)
    assert fused["e"] == pytest.approx(1 / 62 + 1 / 64) and fused["c"] == pytest.approx(1 / 66 + 1 / 65)
    # the front, no backfill needed, shown by text score (ties in fused order: d before f)
    assert skyline(points, minimum=1, maximum=10) == [["b"], ["d"], ["f"], ["a"]]
    assert skyline(points, minimum=5, maximum=10) == [["b"], ["d"], ["f"], ["e"], ["a"]]  # e: the best fused rank left
    assert skyline(points, minimum=1, maximum=2) == [["d"], ["f"]]  # capped by fused rank, not by text
    assert skyline([], minimum=3) == []
    # many nodes no entity reaches (graph score 0): the text score decides, not their keys
    assert skyline([("z", 0.0, 0.1), ("y", 0.0, 0.3), ("x", 0.0, 0.2)], minimum=3) == [["y"], ["x"], ["z"]]
    # a lead (the best block of a name the question gives) joins the front: c, dominated by all, is kept
    assert skyline(points, minimum=1, maximum=10, leads=["c"]) == [["b"], ["d"], ["f"], ["a"], ["c"]]


def test_skyline_units_show_distinct_pages() -> None:
    points = [("a", 0.9, 0.1), ("b", 0.2, 0.8), ("c", 0.1, 0.1), ("d", 0.5, 0.5), ("e", 0.5, 0.4), ("f", 0.5, 0.5),
              ("g", 0.0, 0.0)]
    pages = {"d": ("doc", 3, 3), "f": ("doc", 3, 3), "a": ("doc", 4, 5), "b": ("doc", 5, 5), "e": ("doc", 5, 6),
             "c": ("other", 3, 3), "g": ("doc", 0, 0)}
    # f is on d's page and b on a's: each joins the unit showing its page (led by its best text); e (pages 5-6)
    # shows a new page
    assert skyline(points, minimum=3, maximum=10, pages=pages) == [["b", "a"], ["d", "f"], ["e"]]
    # page 3 of another document is another page; a node without a page is a unit of its own
    assert skyline(points, minimum=5, maximum=10, pages=pages) == [["b", "a"], ["d", "f"], ["e"], ["c"], ["g"]]


def test_skyline_leaves_out_repeated_text() -> None:
    # ten API entries describe the same parameter alike: without ``content`` the repeats take every unit
    points = [(f"r{i}", 1.0, 0.9) for i in range(4)] + [("x", 0.5, 0.5), ("y", 0.2, 0.4), ("z", 0.1, 0.1)]
    pages = {key: ("doc", page, page) for page, (key, _, _) in enumerate(points, 1)}
    assert skyline(points, minimum=3, maximum=3, pages=pages) == [["r0"], ["r1"], ["r2"]]
    content = {f"r{i}": ("doc", "loss_cls (dict) - config of classification loss.") for i in range(4)}
    content |= {"x": ("doc", "x"), "y": ("other", "loss_cls (dict) - config of classification loss.")}
    # one of the repeats is kept (the first in fused order); the same words in another document are not a repeat
    assert skyline(points, minimum=3, maximum=3, pages=pages, content=content.get) == [["r0"], ["x"], ["y"]]


@pytest.mark.parametrize(("question", "plain"), [
    ("How many chapters are in this report?", True), ("How many appendices appear in the document?", True),
    ("How many figures are provided in Pages 51-53?", True), ("How many sections does Appendix C have?", True),
    ("How many tables are there between page 3 and 10?", True),
    ("How many pages include figures which have humans?", False),
    ("How many charts in this report are sourced from the annual survey?", False),
    ("Among figure 1-4, how many figures show more than one gash?", False)])
def test_a_count_that_says_more_than_its_filters(question: str, plain: bool) -> None:
    assert counts_filtered(question) is plain


def test_heuristic_planner() -> None:
    assert heuristic_category("How many tables are in the report?") == "global"
    assert heuristic_category("List all figures in section 3.") == "global"
    assert heuristic_category("Which is larger, revenue in 2017 or in 2018?") == "multi-hop"
    assert heuristic_category("What was the revenue in 2017?") == "single-hop"
    spec = heuristic_global_plan("How many figures are between page 3 and 10?")
    assert spec.operation == "COUNT"
    assert [(f.filter_type, f.filter_value) for f in spec.filters] == [("page", "3-10"), ("image", None)]
    for question, pages in (("List the tables on pages 3 through 5.", "3-5"), ("How many charts on page 7?", "7-7"),
                            ("How many figures are on pages 2, 5 and 9?", "2-9"),  # first to last
                            ("How many figures are on pages 1-100?", "1-100")):  # a range over 20: its ends
        assert heuristic_global_plan(question).filters[0].filter_value == pages, question
    spec = heuristic_global_plan('Summarize the section "Related Work".')
    assert spec.operation == "SUMMARIZE" and spec.filters[0].filter_value == "Related Work"
    # global needs the aggregate to target a structural noun; a noun elsewhere leaves the question single-hop
    assert heuristic_category("How many people are in the figure on page 5?") == "single-hop"
    assert heuristic_category("What share of the chart do all the respondents take?") == "single-hop"
    assert heuristic_category("List the line charts of the report.") == "global"
    # and a structural noun that modifies the aggregate's object (a compound in spaCy's parse) is not its object
    assert heuristic_category("How many chapter authors of this report come from Columbia University?") == \
        "single-hop"
    assert heuristic_category("What is the number of page views in 2020?") == "single-hop"
    assert heuristic_category("How many chapters are in this report?") == "global"
    assert heuristic_category("How many pages include figures which have humans?") == "global"
    # a one-character or numbered section label is a label: "Appendix C", "chapter 2"
    assert [(f.filter_type, f.filter_value) for f in heuristic_global_plan("Summarize Appendix C.").filters] == [
        ("section", "C")]
    assert heuristic_global_plan("How many pages does chapter 2 have?").filters[0].filter_value == "2"
    assert heuristic_global_plan("Summarize the appendices.").filters[0].filter_value == "Appendix"
    toc = [SectionRow(key=k, doc_key="d", title=t, level=1, path=t, page_start=1, page_end=1)
           for k, t in (("a", "Appendix C: Details"), ("b", "Acknowledgements"), ("c", "2 Method"), ("d", "2.1 Setup"),
                        ("e", "12 Results"))]
    assert match_section_title(toc, "C") == ["a"] and match_section_title(toc, "2") == ["c", "d"]
    assert match_section_title(toc, "2.1") == ["d"]


async def test_planner_with_a_scripted_llm() -> None:
    def reply(messages: list[dict]) -> str:
        system = messages[0]["content"]
        if system.startswith("You classify"):
            question = messages[-1]["content"]
            category = "global" if "How many" in question else "multi-hop" if "larger" in question else "single-hop"
            return json.dumps({"category": category})
        if system.startswith("You turn"):
            return json.dumps({"filters": [{"filter_type": "table", "filter_value": None}], "operation": "LIST"})
        return json.dumps({"sub_questions": [{"question": "Revenue in 2017?", "type": "retrieval"},
                                             {"question": "Revenue in 2018?", "type": "retrieval"},
                                             {"question": "Which is larger?", "type": "synthesis"}]})

    llm = ScriptedChatModel(reply)
    make_plan = METHODS["bookrag"].plan
    single = await make_plan("What is Ursa?", Planner(llm))
    assert single.category == "single-hop" and single.classified_by == "llm" and single.method == "bookrag"
    assert [s.operator for s in single.steps][-4:] == ["Skyline_Ranker", "Fetch_Evidence", "Map", "Reduce"]
    multi = await make_plan("Which is larger, revenue in 2017 or 2018?", Planner(llm))
    assert multi.category == "multi-hop" and len(multi.sub_questions) == 3
    assert sum(s.operator == "Extract" for s in multi.steps) == 2  # synthesis sub-questions get no retrieval
    glob = await make_plan("How many tables are there?", Planner(llm))
    assert glob.category == "global" and glob.operation == "LIST"
    assert [s.operator for s in glob.steps] == ["Filter_Modal", "Embed", "Fetch", "Text_Reasoning", "Top_K",
                                                "Fetch_Evidence", "Map", "Reduce"]  # ranked, then cut
    assert glob.step("fetch").params == {"widen": False, "fill": True}  # filters are not widened, but filled
    assert "Filter_Modal(type='table'" in glob.explain()
    broken = await make_plan("What is Ursa?", Planner(ScriptedChatModel(["not json"] * 4)))
    assert broken.classified_by == "heuristic"  # a failed reply falls back to the heuristics


async def test_a_given_category_skips_the_classification() -> None:
    llm = ScriptedChatModel(lambda messages: json.dumps(
        {"filters": [{"filter_type": "table", "filter_value": None}], "operation": "COUNT"}))
    make_plan = METHODS["bookrag"].plan
    plan = await make_plan("Tell me about the tables.", Planner(llm), category="global")
    assert plan.classified_by == "given" and plan.category == "global" and plan.operation == "COUNT"
    assert len(llm.requests) == 1 and llm.requests[0][0]["content"].startswith("You turn")  # global_filter only
    assert (await make_plan("What is Ursa?", Planner(), category="multi-hop")).classified_by == "given"


def test_best_first_is_a_stable_argsort_cut_to_top() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        scores = rng.integers(0, 5, size=int(rng.integers(1, 40))).astype(float)  # many ties
        top = int(rng.integers(0, 45))
        assert best_first(scores, top) == np.argsort(-scores, kind="stable")[:top].tolist()


def test_the_entity_graph_copy_and_its_transition_matrix() -> None:
    rows = [EntityRow("k0", ["n1"], [["k1", 1.0]]), EntityRow("k1", ["n1", "n2"], []), EntityRow("k2", [], [])]
    whole = EntityGraph.from_rows(rows)
    assert {n: v.tolist() for n, v in whole.node_entities.items()} == {"n1": [0, 1], "n2": [1]}
    assert whole.position == {"k0": 0, "k1": 1, "k2": 2}
    # the transition matrix: k0 and k1 share their one edge, k2 has none (an empty column)
    assert whole.transition.toarray().tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    scores = pagerank_on(whole.transition, [0], damping=0.85, max_iterations=1000, tolerance=1e-13)
    # the fixed point: s0 = 0.15 + 0.85 s1 and s1 = 0.85 s0
    assert scores[0] == pytest.approx(0.15 / (1 - 0.85**2), abs=1e-9) and scores[1] == pytest.approx(0.85 * scores[0])
    assert scores[2] == 0.0


def test_a_table_is_scored_by_its_best_row_where_that_beats_the_whole_table() -> None:
    texts = {"tb": ["Segment | 2021\nFrito-Lay | 19,608", "Segment | 2021\nQuaker | 2,751"],
             "tc": ["Region | Sales\nEurope | 3"]}
    headings = {"tb": "Results > Table 3: Net revenue", "tc": "Sales by region (in millions)"}
    rows = [{"key": f"{t}{i}", "table": t, "text": x, "heading": headings[t], "embedding": v}
            for t, v0 in (("tb", [[0.0, 1.0], [1.0, 0.0]]), ("tc", [None]))
            for i, (x, v) in enumerate(zip(texts[t], v0, strict=True))]
    held = _table_rows(rows)
    assert held.headings == headings  # what Text_Reasoning reads each table's rows after (with the table's label)
    heads = ["Results Table 3: Net revenue", "Europe"]
    question = Question("What was Frito-Lay's net revenue in Europe?", vector=[0.0, 1.0])
    stats = LexicalStats.of([*texts["tb"], *texts["tc"], "net revenue", "other"])
    lexical, similarity = held.best(["tb", "tc"], heads, question.text, question.vector, stats)
    # the postings give what BM25 over "head\nrow" gives, the best row a table; similarity (1 + cos) / 2
    for table, head, best in zip(("tb", "tc"), heads, lexical, strict=True):
        assert best == pytest.approx(max(bm25_scores(question.text, [f"{head}\n{x}" for x in texts[table]],
                                                     stats=stats)))
    assert similarity == [1.0, None]  # tc's one row has no embedding
    # the question's results are kept: asked again (Text_Reasoning after Fetch's first stage), nothing is scored
    # again; another question, or another head, is
    held.lexicon.terms.clear()  # type: ignore[attr-defined]
    assert held.best(["tc", "tb"], heads[::-1], question.text, question.vector, stats) == (lexical[::-1],
                                                                                           similarity[::-1])
    assert held.best(["tb"], ["Other head"], question.text, question.vector, stats)[0] == [0.0]
    assert held.best(["tb"], heads[:1], "Quaker?", question.vector, stats)[0] == [0.0]
    table = Candidate(key="tb", doc_key="d", order=1, title="Table 3", section_path="Results", text="...",
                      similarity=0.55)
    assert by_best_row(table, 0.2, lexical[0], similarity[0]) == (table.with_similarity(1.0), lexical[0])
    assert by_best_row(table.with_similarity(0.9), 9.0, 1.0, None) == (table.with_similarity(0.9), 9.0)


async def test_a_method_reads_its_layer_through_the_builder_handed_in_or_says_how_to_build_it() -> None:
    asked: list[tuple[str, str]] = []

    class Builder:
        async def ensure(self, layer: str, doc: Document, models: object) -> None:
            asked.append((layer, doc.key))

    settings = Settings()
    models = SimpleNamespace(embedder=SimpleNamespace(name="embedder-1"), llm=None)
    bare = Document(key="d1", name="report.pdf")
    for name, layer in (("hybrid", "layout"), ("g2", "g2"), ("g2-flat", "layout")):
        await METHODS[name].prepare(Builder(), models, bare, settings)  # type: ignore[arg-type]
        assert asked[-1] == (layer, "d1")
    await METHODS["bookrag"].prepare(Builder(), models, bare, settings)  # type: ignore[arg-type]  # reads no layer
    current = Document(key="d1", name="report.pdf", layout_status="complete",
                       layout_config=layout_config(settings, "embedder-1"))
    await METHODS["hybrid"].prepare(Builder(), models, current, settings)  # type: ignore[arg-type]  # current
    assert len(asked) == 3
    other = current.model_copy(update={"layout_config": layout_config(settings, "embedder-2")})
    await METHODS["hybrid"].prepare(Builder(), models, other, settings)  # type: ignore[arg-type]  # another model's
    assert asked[-1] == ("layout", "d1") and len(asked) == 4
    with pytest.raises(LayerMissingError, match=r"bookrag index report.pdf --stage content-graph"):
        await METHODS["g2"].prepare(None, models, bare, settings)  # type: ignore[arg-type]
    laid = Document(key="d1", name="report.pdf", layout_status="complete")
    await METHODS["hybrid"].prepare(None, models, laid, settings)  # type: ignore[arg-type]  # built: nothing to do
    with pytest.raises(LayerMissingError, match=r"--stage layout"):
        await METHODS["superrag"].prepare(None, models, bare, settings)  # type: ignore[arg-type]


def test_a_renamed_method_still_runs_under_its_former_name_and_warns() -> None:
    from bookrag_neo4j.methods import get_method, method_name

    with pytest.warns(DeprecationWarning, match="'layout' is now 'layout-vanilla'"):
        assert get_method("layout") is METHODS["layout-vanilla"]
    assert method_name("bm25") == "bm25" and "layout" not in METHODS  # "layout" names SuperRAG's layer alone
    with pytest.raises(PlanError, match="unknown method 'nope'"):
        get_method("nope")
