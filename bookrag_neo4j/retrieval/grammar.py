"""The question grammar: the sections a question names and the comparisons it asks for, in one tested place
for every method (the planner, the section selector, SuperRAG's templates, G²-Reader's offline decomposer).
Numbered figures, tables, exhibits, equations and pages are :mod:`bookrag_neo4j.tree.references`' grammar,
shared with the index.

    section_reference("How many tables are in Appendix C?")             # 'C' (a label: "C", "3", "2.1")
    section_reference('Summarise the section titled "Related work"')    # 'Related work'
    quoted_section_title('What does the chapter called "Setup" say?')   # 'Setup' (quoted titles only)
    section_label_pattern("c").search("appendix c data")                # matches: a label numbers a title
    asks_to_compare("Is revenue higher in 2021 or 2022?")               # True: a multi-hop question
    comparison_split("Compare the GPU and the CPU results")             # ('Compare ', 'the GPU', 'the CPU results', '')

Any word after "section", "chapter", "part" or "appendix" starts a reference ("the part of ..." too): the planner
reads it as a title that no section may carry. Two comparison cues, on purpose: :func:`asks_to_compare` decides a
question's category, so it wants a comparison's words ("difference between", "both", "larger ... or");
:func:`comparison_split` only splits a question that already has two sides joined by "and", "or" or "vs", so a
looser cue ("which", "whether", "between", "better") suffices there.
"""

from __future__ import annotations

import re

SECTION = re.compile(r"\b(?:section|chapter|part|appendix)\s+(?:titled\s+|named\s+|called\s+)?[\"“'‘]?"
                     r"([A-Z0-9](?:[^\"”'’?,.]|\.(?=\d)){0,80})", re.IGNORECASE)  # "2.1" whole
_QUOTED_TITLE = re.compile(
    r"\b(?:section|chapter|part)\s+(?:titled|named|called|on|about)?\s*[\"“'‘]([^\"”'’]{3,80})[\"”'’]", re.IGNORECASE)
_LABEL = r"[A-Z]|[0-9]+(?:\.[0-9]+)*"  # "C", "3", "2.1"
_COMPARISON = re.compile(r"\b(compare[ds]?|comparison|difference between|differ|both|versus|vs\.?|than|"
                         r"(?:larger|greater|higher|lower|smaller|more|less|bigger)\b.*\bor\b)", re.IGNORECASE)
_COMPARISON_CUE = re.compile(r"\b(compare[ds]?|comparison|difference|differ|between|versus|vs\.?|than|which|"
                             r"whether|larger|greater|higher|lower|smaller|more|less|bigger|better|worse)\b",
                             re.IGNORECASE)
_PAIR = re.compile(r"(?P<a>[^,;:?]{2,80}?)\s+(?:and|or|vs\.?|versus)\s+(?P<b>[^,;:?]{2,80}?)\s*(?=[?.;]|$)",
                   re.IGNORECASE)
_LEAD = re.compile(r"^(?:.*\b(?:between|compare[ds]?|of|for|in|from)\s+)", re.IGNORECASE)


def section_reference(question: str) -> str | None:
    """The section a question names: its label where it has one ("Appendix C" -> "C", "Section 3 has" -> "3"),
    else the words after "section", "chapter", "part" or "appendix" (a title, quoted or not)."""
    found = SECTION.search(question)
    if found is None:
        return None
    value = found.group(1).strip()
    label = re.match(rf"({_LABEL})(?:\s|$)", value)
    return label.group(1) if label else value


def without_section_references(text: str) -> str:
    """``text`` with every section reference blanked out."""
    return SECTION.sub(" ", text)


def quoted_section_title(question: str) -> str | None:
    """A section's title given in quotes ("the section titled 'Results'", "chapter on “Safety”"), else None."""
    found = _QUOTED_TITLE.search(question)
    return found.group(1).strip() if found else None


def is_section_label(text: str) -> bool:
    """Whether ``text`` is a label that numbers sections ("C", "3", "2.1"), not a title."""
    return re.fullmatch(_LABEL, text, re.IGNORECASE) is not None


def section_label_pattern(label: str) -> re.Pattern[str]:
    """What a section title that ``label`` numbers starts with, in lower case ("c" finds "appendix c data")."""
    return re.compile(rf"^(?:(?:appendix|section|chapter|part)\s+)?{re.escape(label)}\b")


def asks_to_compare(question: str) -> bool:
    """Whether a question asks for a comparison (a multi-hop question)."""
    return _COMPARISON.search(question) is not None


def comparison_split(question: str) -> tuple[str, str, str, str] | None:
    """(before, side A, side B, after) of a comparison ("between A and B", "A or B?", "A vs B"), else None."""
    question = question.strip()
    pairs = list(_PAIR.finditer(question)) if _COMPARISON_CUE.search(question) else []
    if not pairs:
        return None
    match = pairs[-1]
    a, b = match.group("a"), match.group("b").strip()
    lead = _LEAD.match(a)
    cut = lead.end() if lead and lead.end() < len(a) else 0
    first = a[cut:].strip()
    if not first or not b or first.lower() == b.lower():
        return None
    return question[:match.start()] + a[:cut], first, b, question[match.end():]
