"""Numbered references: the figures, tables, exhibits, equations and pages a text names, and the name a block carries.

    mentions("as Tables 2 and 3 show")                          # [("table", "2"), ("table", "3")]
    reference_of("Fig. 3. Comparison between the paradigms")   # Reference("figure", "3")
    pages("How many people are on the cover?")                  # [Page(place=1)]: the first page of the PDF

One grammar for the layout layer's REFERS_TO edges, SuperRAG's caption template and the blocks a question names first
(``DocumentBlocks.named``): neither BM25 nor an embedding finds these ("figure" against "Fig."; a number is any term).
Families: figure, fig, chart, diagram, graph, plot; table, tab; exhibit; equation, eq. Numbers compare as written, Roman
numerals case-insensitively (upper-case in running text); a range names each number (at most 20). Pages are read as
printed labels; "the cover"/"first page" is the PDF's first, "back cover"/"last page" its last.
"""

from __future__ import annotations

import re
from typing import NamedTuple

_FAMILY = {"figure": "figure", "fig": "figure", "chart": "figure", "diagram": "figure", "graph": "figure",
           "plot": "figure", "table": "table", "tab": "table", "exhibit": "exhibit", "equation": "equation",
           "eq": "equation"}
_WORD = r"(figures?|figs?|charts?|diagrams?|graphs?|plots?|tables?|tabs?|exhibits?|equations?|eqs?)"
_ID = r"(?:\d+(?:\.\d+)*[a-z]?|[IVXLCivxlc]+)"
_END = r"(?=$|[\s:,;)–—-]|\.(?!\d))"  # what may follow the number a name ends with ("Fig. 3." but not "Table 3.2")
_MENTION = re.compile(r"\b" + _WORD + r"\.?\s*(" + _ID + r"(?:\s*(?:-|–|to|and|,|&)\s*" + _ID + r")*)\b",
                      re.IGNORECASE)
_PAGE_ID = r"(?:\d{1,5}|[ivxlc]{1,7})"
_PAGE = re.compile(r"\b(?:pages?\b|pp?\.)\s*(" + _PAGE_ID + r"(?:\s*(?:-|–|to|through|and|,|&)\s*" + _PAGE_ID + r")*)\b",
                   re.IGNORECASE)
_FIRST = re.compile(r"\b(?:the (?:front )?cover|front cover|cover page|(?:title|first|front) page)\b", re.IGNORECASE)
_LAST = re.compile(r"\b(?:back cover|(?:last|final|back) page)\b", re.IGNORECASE)
_NAME = re.compile(r"^\s*" + _WORD + r"\.?\s*(" + _ID + r")" + _END, re.IGNORECASE)
_SPLIT = re.compile(r"\s*(?:,|&|and)\s*", re.IGNORECASE)
_RANGE = re.compile(r"^(\d+)\s*(?:-|–|to|through)\s*(\d+)$", re.IGNORECASE)
MAX_RANGE = 20


class Page(NamedTuple):
    """A page a text names: by the label printed on it, or by its place in the PDF (1 the first, -1 the last)."""

    label: str = ""
    place: int = 0


class Reference(NamedTuple):
    """A numbered name: its family ("figure", "table", "exhibit", "equation") and its number, lower-case."""

    family: str
    number: str


def _family(word: str) -> str:
    word = word.lower()
    return _FAMILY.get(word, _FAMILY.get(word[:-1], ""))


def _numbers(listed: str, *, roman: bool) -> list[str]:
    """The numbers of "3", "1-4", "2 and 3", "II, III" (a Roman numeral upper-case unless ``roman``)."""
    found: list[str] = []
    for part in _SPLIT.split(listed):
        if span := _RANGE.match(part.strip()):  # a longer range than 20 names its two ends
            first, last = int(span[1]), int(span[2])
            found += [str(n) for n in (range(first, last + 1) if 0 <= last - first < MAX_RANGE else (first, last))]
        elif part and (part[0].isdigit() or roman or part.isupper()):
            found.append(part.lower())
    return found


def mentions(text: str) -> list[Reference]:
    """The references ``text`` names (a question, or a block's running text), each once, in order."""
    found: list[Reference] = []
    for match in _MENTION.finditer(text or ""):
        family = _family(match.group(1))
        found += [ref for n in _numbers(match.group(2), roman=False) if (ref := Reference(family, n)) not in found]
    return found


def pages(text: str) -> list[Page]:
    """The pages ``text`` names, each once: by place (first, then last), then by label in order (lower-case)."""
    found = [Page(place=place) for place, words in ((1, _FIRST), (-1, _LAST)) if words.search(text or "")]
    for match in _PAGE.finditer(text or ""):
        found += [page for n in _numbers(match.group(1), roman=True) if (page := Page(label=n)) not in found]
    return found


def reference_of(text: str) -> Reference | None:
    """The reference a caption, title or text starts with, or None."""
    match = _NAME.match(text or "")
    return Reference(_family(match.group(1)), match.group(2).lower()) if match else None


def caption_pattern(ref: Reference) -> str:
    """A regular expression (Python's and Cypher's ``=~`` alike) that a whole caption or text starting with
    ``ref``'s name matches, as :func:`reference_of` reads it."""
    words = "|".join(sorted(w for w, family in _FAMILY.items() if family == ref.family))
    return rf"(?is)^\s*(?:{words})s?\.?\s*{re.escape(ref.number)}{_END}.*"
