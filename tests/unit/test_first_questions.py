"""The demo's and the quickstart notebook's questions follow the PDF they were given."""

from __future__ import annotations

from bookrag_neo4j.first_questions import R_INTRO_QUESTIONS, first_questions
from bookrag_neo4j.library.catalogue import TocEntry


def test_r_intro_keeps_its_questions_and_another_pdf_gets_its_own() -> None:
    assert first_questions("R-intro.pdf", []) == R_INTRO_QUESTIONS
    toc = [TocEntry(title=title, level=level, key=title) for title, level in (("1 Scope", 1), ("1.1 Terms", 2),
                                                                                    ("3 Outlook", 1))]
    asked = first_questions("handbook.pdf", toc)
    assert [category for category, _ in asked] == ["single-hop", "multi-hop", "global"]
    assert '"1 Scope"' in asked[0][1] and '"1 Scope"' in asked[1][1] and '"3 Outlook"' in asked[1][1]
    assert "lm" not in " ".join(q for _, q in asked)  # never R-intro's questions about another document
    assert first_questions("empty.pdf", [])[0][1] == 'What does the section "empty.pdf" say?'
