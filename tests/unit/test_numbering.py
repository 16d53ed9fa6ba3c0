"""Numbering completion: chosen numbered headings bring in their missed siblings and parents set in a heading's
style, and nothing else (body-size numbered lines, another style, a table of contents page, a running title)."""

from __future__ import annotations

from pathlib import Path

from bookrag_neo4j.parsing.blocks import Block, ParsedDocument
from bookrag_neo4j.tree.features import candidate_features
from bookrag_neo4j.tree.numbering import complete_numbering, number_of

BODY = "A paragraph of body text that runs long enough to be read as body text and never as a heading. " * 3


def _paper() -> ParsedDocument:
    blocks = [Block("title", "Contents", page=1, font_size=14, bold=True)]
    blocks += [Block("text", f"{n} {t} . . . {n + 1}", page=1, font_size=10) for n, t in
               ((1, "Introduction"), (2, "Related Work"), (3, "Method"))]
    for page, lines in enumerate((
            [("1 Introduction", 12, True), ("2 Steps we take", 10, False)],  # a body-size numbered line
            [("2 Related Work", 12, True), ("2.1 Retrieval", 11, True)],
            [("3 Method", 12, True), ("3.1 Problem", 11, True), ("3.2 Model", 11, True)],
            [("4 Experiments", 12, True), ("4.1 Results", 11, True), ("5 Conclusion", 12, False)]), start=2):
        for text, size, bold in lines:
            blocks += [Block("title", text, page=page, font_size=size, bold=bold), Block("text", BODY, page=page)]
    return ParsedDocument(Path("paper.pdf"), "h", "A paper", 5, blocks, page_sizes={p: (612, 792) for p in range(1, 6)})


def _titles(doc: ParsedDocument, positions: list[int], chosen: list[int]) -> list[str]:
    return [doc.blocks[positions[k]].text for k in chosen]


def test_numbers() -> None:
    assert number_of("4.1 Main Results") == ("4", "1") and number_of("A.2 Models") == ("A", "2")
    assert number_of("A Appendix") == ("A",) and number_of("12. Scope") == ("12",)
    assert number_of("2019 Annual Report") is None and number_of("3 cups of flour") is None
    assert number_of("Introduction") is None


def test_chosen_headings_bring_their_siblings_and_parents_in_their_style() -> None:
    doc = _paper()
    positions, x = candidate_features(doc)
    by_title = {doc.blocks[p].text: k for k, p in enumerate(positions)}
    chosen = [by_title["2 Related Work"], by_title["3.1 Problem"], by_title["4.1 Results"]]
    added = complete_numbering(doc, positions, x, chosen)
    assert _titles(doc, positions, sorted([*chosen, *added])) == [
        "1 Introduction", "2 Related Work", "2.1 Retrieval", "3 Method", "3.1 Problem", "3.2 Model",
        "4 Experiments", "4.1 Results"]
    # each with the heading that asked for it and the change in depth: the levels follow from the asker's
    assert added[by_title["4 Experiments"]] == (by_title["4.1 Results"], -1)
    assert added[by_title["3.2 Model"]] == (by_title["3.1 Problem"], 0)
    assert added[by_title["2.1 Retrieval"]][1] == 1
    # "2 Steps we take" is body size, "5 Conclusion" is not bold, the contents page's lines are skipped
    assert complete_numbering(doc, positions, x, []) == {}
    assert complete_numbering(doc, positions, x, [by_title["Contents"]]) == {}


def test_a_running_title_is_not_a_sibling() -> None:
    doc = _paper()
    doc.blocks += [Block("title", "5 Conclusion", page=p, font_size=12, bold=True) for p in (5, 5)]
    doc.blocks[-1].page, doc.page_count = 6, 6
    doc.blocks.append(Block("title", "5 Conclusion", page=7, font_size=12, bold=True))
    positions, x = candidate_features(doc)
    chosen = [k for k, p in enumerate(positions) if doc.blocks[p].text == "4 Experiments"]
    assert "5 Conclusion" not in _titles(doc, positions, list(complete_numbering(doc, positions, x, chosen)))
