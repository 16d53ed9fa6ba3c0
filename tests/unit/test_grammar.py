"""The question grammar: section references, quoted section titles, section labels and comparisons, as the
planner, the section selector, SuperRAG's templates and G²-Reader's decomposer read them."""

from __future__ import annotations

import pytest

from bookrag_neo4j.text.grammar import (
    asks_to_compare,
    comparison_split,
    is_section_label,
    quoted_section_title,
    section_label_pattern,
    section_reference,
    without_section_references,
)


@pytest.mark.parametrize(("question", "section"), [
    ("How many tables are in Appendix C?", "C"),
    ("How many figures does Section 3 have?", "3"),
    ("What is in section 2.1 of the manual?", "2.1"),
    ('Summarise the section titled "Related work"', "Related work"),
    ("List the figures in the chapter called Results and discussion", "Results and discussion"),
    ("How many tables are there?", None),
    ("What does appendix c say?", "c"),
    ("In the chapter Results, what is reported?", "Results"),
    ("How many chapter authors of this report come from Columbia University?", None),  # a compound, not a title
    ("Which part of the brain is affected?", None),
    ("What does the section does not cover?", None),
])
def test_a_section_reference_is_its_label_or_its_title(question: str, section: str | None) -> None:
    assert section_reference(question) == section


def test_section_references_blank_out_and_labels_number_titles() -> None:
    assert without_section_references("How many tables in Appendix C?").split() == ["How", "many", "tables", "in", "?"]
    assert is_section_label("C") and is_section_label("2.1") and not is_section_label("Results")
    assert section_label_pattern("c").search("appendix c data") and section_label_pattern("3").search("3 results")
    assert not section_label_pattern("3").search("31 results")


def test_only_a_quoted_title_is_a_titled_section() -> None:
    assert quoted_section_title("What does the chapter called “Setup” say?") == "Setup"
    assert quoted_section_title("Summarise the section on 'Safety rules'") == "Safety rules"
    assert quoted_section_title("Summarise section 3") is None


@pytest.mark.parametrize(("question", "compares"), [
    ("Is revenue higher in 2021 or 2022?", True),
    ("What is the difference between the two models?", True),
    ("Did both segments grow?", True),
    ("What was revenue in 2021?", False),
    ("Which model is better?", False),  # a cue for splitting sides, not a comparison's category
])
def test_a_comparison_is_asked_for_by_its_words(question: str, compares: bool) -> None:
    assert asks_to_compare(question) is compares


def test_a_comparison_splits_into_its_two_sides() -> None:
    assert comparison_split("Compare the GPU and the CPU results") == ("Compare ", "the GPU", "the CPU results", "")
    assert comparison_split("What is the difference between Llama 2 and GPT-4?") == (
        "What is the difference between ", "Llama 2", "GPT-4", "?")
    assert comparison_split("Which grew more, services or products?")[1:3] == ("services", "products")
    assert comparison_split("Which is better, A or A?") is None  # the same side twice
    assert comparison_split("What is the revenue?") is None
