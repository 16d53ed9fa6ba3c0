"""The question grammar: the sections a question names and the comparisons it asks for, shared by every method.

    section_reference("How many tables are in Appendix C?")             # 'C' (a label: "C", "3", "2.1")
    comparison_split("Compare the GPU and the CPU results")             # ('Compare ', 'the GPU', 'the CPU results', '')

One tested place for the planner, the section selector, SuperRAG's templates and G²-Reader's offline decomposer;
numbered figures, tables and pages are :mod:`bookrag_neo4j.tree.references`' grammar. A bare reference starts with a
label or a capital ("Section 3", "appendix c", "chapter Results"), so "the part of ...", "section does" or "chapter
authors" name no section. Two comparison cues, on purpose: :func:`asks_to_compare` decides a question's category, so it
wants a comparison's words ("difference between", "both", "larger ... or"); :func:`comparison_split` only splits a
question with two sides joined by "and", "or" or "vs", so a looser cue suffices.
"""

from __future__ import annotations

import re

# A reference: "section titled ...", a quoted title, or a bare one that starts as a label or a title does (a digit,
# a capital, a lower-case appendix letter); "the part of", "chapter authors" and "section does" are not references.
SECTION = re.compile(r"\b(?:section|chapter|part|appendix)\s+(?:(?:titled|named|called)\s+[\"“'‘]?|[\"“'‘]|"
                     r"(?=[0-9]|(?-i:[A-Z])|(?<=appendix\s)[a-z]\b))"
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
    label = re.match(rf"({_LABEL})(?:\s|$)", value, re.IGNORECASE)
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
