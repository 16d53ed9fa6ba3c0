"""Numbering completion: a numbered heading vouches for its numbered neighbours.

    added = complete_numbering(doc, positions, x, chosen)   # {candidate: (the candidate that asked, depth change)}

The classifier scores each block alone, so it may take "2 Related Work" for a heading and miss "1 Introduction" set in
the same style, where a reader knows numbered headings come in sequences. Each chosen numbered heading asks for its
previous and next sibling in its own style (size, weight, slant), its parent ("4.1" asks for "4") set at least as large
before it, and its first child in the style of a chosen heading of that depth after it; what is found asks in turn,
until nothing new is found. Only short candidate blocks qualify, never on a contents page or a running line; a number is
a chapter or section number of one or two digits, or an appendix letter, before a capitalised title.
"""

from __future__ import annotations

import re
from collections import defaultdict

import numpy as np

from ..parsing.blocks import ParsedDocument
from .features import FEATURES, style

Number = tuple[str, ...]
Style = tuple[float, bool, bool]
_NUMBER = re.compile(r"^\s*(\d{1,2}|[A-Z])((?:\.\d{1,2})*)\.?\s+[A-Z]")
_TOC, _RECURS = FEATURES.index("toc_page"), FEATURES.index("text_recurs")


def number_of(text: str) -> Number | None:
    """``("4", "1")`` for "4.1 Main Results", ``("A",)`` for "A Appendix"; None for a block without one."""
    match = _NUMBER.match(text)
    if not match:
        return None
    return (match.group(1), *(part for part in match.group(2).split(".") if part))


def _step(part: str, by: int) -> str | None:
    if part.isdigit():
        return str(int(part) + by) if int(part) + by >= 1 else None
    shifted = ord(part) + by
    return chr(shifted) if ord("A") <= shifted <= ord("Z") else None


def _wanted(number: Number) -> list[tuple[Number, int]]:
    """The numbers ``number`` asks for and where to look: -1 before it (previous sibling, parent), 1 after it
    (next sibling, first child)."""
    wanted: list[tuple[Number, int]] = [((*number, "1"), 1)]
    for by in (-1, 1):
        sibling = _step(number[-1], by)
        if sibling is not None:
            wanted.append(((*number[:-1], sibling), by))
    if len(number) > 1:
        wanted.append((number[:-1], -1))
    return wanted


def complete_numbering(doc: ParsedDocument, positions: list[int], x: np.ndarray,
                       chosen: list[int]) -> dict[int, tuple[int, int]]:
    """The numbered candidates that the ``chosen`` numbered headings ask for (indices into ``positions``, the
    candidates' blocks), in the order found: each with the candidate that asked for it and their difference in
    depth (0 a sibling, -1 a parent, 1 a first child)."""
    numbers: dict[int, Number] = {}
    for k, p in enumerate(positions):
        number = number_of(doc.blocks[p].text)
        if number is not None and not x[k, _TOC] and x[k, _RECURS] <= 2:
            numbers[k] = number
    styles = {k: style(doc.blocks[positions[k]]) for k in numbers}
    holders: dict[Number, list[int]] = defaultdict(list)  # the candidates of each number, in reading order
    for k, number in numbers.items():
        holders[number].append(k)
    added: dict[int, tuple[int, int]] = {}
    have = {(numbers[k], styles[k]) for k in chosen if k in numbers}

    def fits(candidate: Style, asker: Style, asked: Number, by: Number) -> bool:
        if len(asked) == len(by):  # a sibling: the asker's own style
            return candidate == asker
        if len(asked) > len(by):  # a first child: the style of a chosen heading of its depth
            return any(len(n) == len(asked) and s == candidate for n, s in have)
        return candidate[0] > asker[0] or (candidate[0] == asker[0] and candidate[1] >= asker[1])  # a parent

    queue = [k for k in chosen if k in numbers]
    while queue:
        asker = queue.pop()
        for number, direction in _wanted(numbers[asker]):
            if any(n == number and fits(s, styles[asker], number, numbers[asker]) for n, s in have):
                continue
            found = [k for k in holders[number] if (k - asker) * direction > 0
                     and fits(styles[k], styles[asker], number, numbers[asker])]
            if found:
                k = min(found, key=lambda k: abs(k - asker))
                added[k] = (asker, len(number) - len(numbers[asker]))
                have.add((number, styles[k]))
                queue.append(k)
    return added
