"""Evaluation without a server: the pages a retrieved unit shows. (``bookrag eval`` on a real mini benchmark:
``tests/integration/test_eval.py``; the metrics: ``test_metrics.py``.)"""

from __future__ import annotations

from bookrag_neo4j.retrieval.results import EvidenceNode


def unit(**pages: object) -> EvidenceNode:
    return EvidenceNode(key="k", doc_key="d", document="a.pdf", kind="passage", text="t", **pages)


def test_a_unit_shows_its_page_range_or_its_merged_pages() -> None:
    assert unit(page_start=3, page_end=5).pages == [3, 4, 5]
    assert unit(page_start=4, page_end=0).pages == [4]  # a missing end: the first page alone
    assert unit(page_start=0, page_end=0).pages == []  # no page known: the unit uses none of a page budget
    assert unit(page_start=7, page_end=9, page_list=[7, 9]).pages == [7, 9]  # a cross-page merge across a gap


def test_dev_documents_split_into_two_halves_by_their_file_name() -> None:
    from bookrag_neo4j.eval.benchmark import HALVES, half

    names = [f"report-{i}.pdf" for i in range(200)]
    halves = [half(name) for name in names]
    assert set(halves) == set(HALVES) and 70 < halves.count("design") < 130  # both halves, neither tiny
    assert [half(name) for name in names] == halves  # the same every time
    assert half("3M_2018_10K.pdf") == "check" and half("PEPSICO_2021_10K.pdf") == half("PEPSICO_2021_10K.pdf")


def _row(method: str, doc: str, qid: str, recall: float):
    from bookrag_neo4j.eval.scored import EvalRow

    return EvalRow(benchmark="dev", id=qid, doc=doc, method=method, question="?", category="single-hop",
                   sources=["text"], doc_type="report", gold_answer="", gold_pages=[1], retrieved=[], units=0,
                   retrieved_pages=[], recall=recall, recall_at_5=recall, recall_at_10=recall, pages=0,
                   recall_at_5p=recall, recall_at_10p=recall, seconds=0.0, llm_calls=0, tokens=0)


def test_the_report_says_which_parts_help_on_both_halves() -> None:
    from bookrag_neo4j.eval.benchmark import half
    from bookrag_neo4j.eval.parts import parts_section
    from bookrag_neo4j.eval.summary import part_effects, summarise

    design = next(f"d{i}.pdf" for i in range(50) if half(f"d{i}.pdf") == "design")
    check = next(f"d{i}.pdf" for i in range(50) if half(f"d{i}.pdf") == "check")
    scores = {"full": (1.0, 0.5), "no-a": (0.5, 0.0), "no-b": (1.0, 1.0), "no-c": (0.0, 1.0), "no-d": (1.0, 0.5)}
    rows = [_row(m, doc, doc, s[i]) for m, s in scores.items() for i, doc in enumerate((design, check))]
    summary = summarise(rows)
    assert summary.methods["full"].halves == {"design": 1.0, "check": 0.5}
    assert summary.parts == []  # none of these is a registered ablation
    record = summary.record()  # summary.json: measures under their report names, unmeasured ones left out
    assert record["methods"]["full"]["recall@5p"] == 0.75 and "judge" not in record["methods"]["full"]
    effects = part_effects(summary.methods, {"no-a": ("full", "without part a"), "no-b": ("full", "b"),
                                     "no-c": ("full", "c"), "no-d": ("full", "d"), "other": ("missing", "e")})
    assert [(e.ablation, e.delta, e.verdict) for e in effects] == [
        ("no-a", {"all": -0.5, "design": -0.5, "check": -0.5}, "helps"),
        ("no-c", {"all": -0.25, "design": -1.0, "check": 0.5}, "mixed"),
        ("no-d", {"all": 0.0, "design": 0.0, "check": 0.0}, "none"),
        ("no-b", {"all": 0.25, "design": 0.0, "check": 0.5}, "mixed"),
    ]
    section = parts_section(effects)
    assert "| full | no-a | without part a | 0.750 | -0.500 | -0.500 | -0.500 | helps |" in section
    assert parts_section([]) == ""


def test_asked_of_the_library_only_the_own_documents_pages_count() -> None:
    """A library-wide row: another document's page 2 is not the own document's page 2, yet it takes a place in
    the 5-page budget; the own document's rank among the evidence's documents is kept and summarised."""
    from bookrag_neo4j.eval.benchmark import BenchQuestion, half
    from bookrag_neo4j.eval.report import report_body
    from bookrag_neo4j.eval.runner import _score
    from bookrag_neo4j.eval.scored import RetrievedUnit
    from bookrag_neo4j.eval.summary import summarise

    question = BenchQuestion(id="q", doc="own.pdf", question="What?", answer="x", evidence_pages=[2, 9])
    units = [RetrievedUnit(key=f"o{i}", kind="text", pages=[i], doc="other") for i in range(1, 5)] + [
        RetrievedUnit(key="a", kind="text", pages=[2], doc="own"), RetrievedUnit(key="b", kind="text", pages=[9], doc="own")]
    per_document = _score("dev", question, "m", units, 0.1, 0, 0)
    assert per_document.recall_at_5p == 1.0 and "doc_rank" not in per_document.record()  # 2 and 9 shown, by number
    library = _score("dev", question, "m", units, 0.1, 0, 0, own="own")
    assert library.recall_at_5p == 0.5  # the 4 other pages and own page 2 fill the budget: page 9 is not shown
    assert library.recall == 1.0 and library.doc_rank == 2 and library.retrieved_pages == [2, 9]
    assert library.record()["scope"] == "library" and library.record()["recall@5p"] == 0.5
    first = _score("dev", question, "m", units[4:], 0.1, 0, 0, own="own")
    missing = _score("dev", question, "m", units[:4], 0.1, 0, 0, own="own")
    assert (first.doc_rank, first.recall_at_5p, missing.doc_rank, missing.recall) == (1, 1.0, None, 0.0)
    assert "doc_rank" in missing.record()  # asked of the library, the own document not among the evidence
    summary = summarise([library, first, missing])
    ranks = summary.methods["m"].own_document
    assert ranks is not None
    assert ranks["all"] == {"top1": round(1 / 3, 4), "top3": round(2 / 3, 4), "top5": round(2 / 3, 4)}
    assert set(ranks) == {"all", half("own.pdf")}
    assert "## The question's own document, asked of the whole library" in report_body(summary)
    assert "own document" not in report_body(summarise([per_document]))
