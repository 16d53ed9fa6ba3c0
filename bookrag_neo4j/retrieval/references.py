"""Numbered references: the figures, tables, exhibits and equations a question names by number ("In figure 3",
"According to Table II", "figures 1-4"), and the blocks that carry those names (a title, such as a caption, or
a text that starts "Fig. 3.", "TABLE II", "Exhibit 4.1:").

    references("In figure 3, how many icons are used?")      # {("figure", "3")}
    reference_of("Fig. 3. Comparison between the paradigms")  # ("figure", "3")

Neither BM25 nor an embedding finds them: the english words differ ("figure" against "Fig."), the number is
a term like any other, and a caption says what the figure shows, not what the question asks of it. A block the
question names this way is what it asks about (Text_Reasoning ranks it first, Fetch takes it).

A family stands for the words used alike: figure, fig, chart, diagram, graph, plot (``figure``); table, tab;
exhibit; equation, eq. Numbers are compared as written ("4.1", "3b"), Roman numerals case-insensitively; in a
question a Roman numeral must be upper-case ("table I", not "table i"), and a range ("figures 1-4", "1 to 4")
names every number in it, at most 20.
"""

from __future__ import annotations

import re

_FAMILY = {"figure": "figure", "fig": "figure", "chart": "figure", "diagram": "figure", "graph": "figure",
           "plot": "figure", "table": "table", "tab": "table", "exhibit": "exhibit", "equation": "equation",
           "eq": "equation"}
_WORD = r"(figures?|figs?|charts?|diagrams?|graphs?|plots?|tables?|tabs?|exhibits?|equations?|eqs?)"
_ID = r"(?:\d+(?:\.\d+)*[a-z]?|[IVXLCivxlc]+)"
_QUESTION = re.compile(r"\b" + _WORD + r"\.?\s*(" + _ID + r"(?:\s*(?:-|–|to|and|,|&)\s*" + _ID + r")*)\b", re.IGNORECASE)
_NAME = re.compile(r"^\s*" + _WORD + r"\.?\s*(" + _ID + r")(?=$|[\s.:,;)–—-])", re.IGNORECASE)
_SPLIT = re.compile(r"\s*(?:,|&|and)\s*", re.IGNORECASE)
_RANGE = re.compile(r"^(\d+)\s*(?:-|–|to)\s*(\d+)$", re.IGNORECASE)
MAX_RANGE = 20


def _family(word: str) -> str:
    word = word.lower()
    return _FAMILY.get(word, _FAMILY.get(word[:-1], ""))


def references(question: str) -> set[tuple[str, str]]:
    """The (family, number) pairs ``question`` names; empty where it names none."""
    found: set[tuple[str, str]] = set()
    for match in _QUESTION.finditer(question):
        word = match.group(1)
        for part in _SPLIT.split(match.group(2)):
            if (span := _RANGE.match(part.strip())) and 0 <= int(span[2]) - int(span[1]) < MAX_RANGE:
                found |= {(_family(word), str(n)) for n in range(int(span[1]), int(span[2]) + 1)}
            elif part[0].isdigit() or part.isupper():  # a number, or an upper-case Roman numeral
                found.add((_family(word), part.lower()))
    return found


def reference_of(text: str) -> tuple[str, str] | None:
    """The (family, number) a block's title or text starts with, or None."""
    match = _NAME.match(text or "")
    return (_family(match.group(1)), match.group(2).lower()) if match else None
