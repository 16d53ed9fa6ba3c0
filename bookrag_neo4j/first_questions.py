"""Three questions for a first look at a document, one per category the planner knows (single-hop, multi-hop,
global): R's "An Introduction to R" (``bookrag demo``'s manual) has its own; any other PDF gets three written from
its table of contents, so that the demo and the quickstart notebook ask about the document they were given.

    first_questions("R-intro.pdf", rag.toc("R-intro.pdf"))   # [("single-hop", "What does the lm function fit?"), ...]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .library.catalogue import TocEntry

R_INTRO = "R-intro.pdf"
R_INTRO_QUESTIONS: list[tuple[str, str]] = [
    ("single-hop", "What does the lm function fit?"),
    ("multi-hop", "What is the difference between a matrix and an array?"),
    ("global", "How many tables are in the manual?"),
]


def first_questions(name: str, toc: Sequence[TocEntry]) -> list[tuple[str, str]]:
    """(category, question) three times for the document named ``name`` whose table of contents is ``toc``:
    R-intro's own, else about its first and last top-level sections."""
    if name == R_INTRO:
        return list(R_INTRO_QUESTIONS)
    titles = [entry.title for entry in toc if entry.level == 1 and entry.title]
    first, last = (titles[0], titles[-1]) if titles else (name, name)
    return [("single-hop", f'What does the section "{first}" say?'),
            ("multi-hop", f'What is the difference between "{first}" and "{last}"?'),
            ("global", "How many tables are in the document?")]
