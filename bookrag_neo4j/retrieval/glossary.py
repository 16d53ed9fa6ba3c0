"""A glossary of metrics, line items and statements: LLM-free decomposition, and the statement tables a question names.

    Glossary.load("shipped").sub_questions("What is Acme's FY2017 return on assets?")
    # ["What is Acme's FY2017 net income?", "What is Acme's FY2017 total assets?"]

"Return on assets" asks for net income and total assets, which neither BM25 nor an embedding reads from it (the
planner's Decompose, paper §5.1). Terms match case-insensitively as whole words, longest first, never overlapping; a
metric stands for its parts, a line item for itself. A question naming two items or more gets a sub-question per item
(the stretch from the first term to the last replaced). A statement named, or one reporting a named item, gives the
table titles it goes by (:meth:`~bookrag_neo4j.retrieval.document_blocks.DocumentBlocks.named`). The file is a domain pack's
(:mod:`bookrag_neo4j.domains`), or ``BOOKRAG_GLOSSARY``'s.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..errors import ConfigurationError

SHIPPED = Path(__file__).parents[1] / "domains" / "finance" / "glossary.json"
MAX_ITEMS = 4  # sub-questions at most (each is a retrieval of its own)


@dataclass(frozen=True)
class Entry:
    terms: tuple[str, ...]
    parts: tuple[str, ...]
    statement: str = ""  # a line item: the statement it is reported on (one of a statement's names)


@dataclass(frozen=True)
class Statement:
    names: tuple[str, ...]  # what a question calls it
    titles: tuple[str, ...]  # what a document titles it (lower-case, found within a table's title)


_JOINT = re.compile(r"[\s-]+")


def joined(term: str) -> str:
    """A term as the glossary looks it up: lower-case, without its spaces and hyphens ("cash flow", "cash-flow"
    and "cashflow" are one term)."""
    return _JOINT.sub("", term.lower())


def _words(terms: list[str]) -> re.Pattern[str] | None:
    """One pattern for ``terms`` as whole words, the longest first; where a term has a space or a hyphen, the
    question may have either or neither ("long-term debt", "long term debt", "longterm debt")."""
    alternatives = "|".join(r"[\s-]?".join(re.escape(w) for w in _JOINT.split(t))
                            for t in sorted(terms, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])({alternatives})(?![\w-])", re.IGNORECASE) if terms else None


class Glossary:
    """Metrics, line items and statements, found in questions."""

    def __init__(self, entries: list[Entry], statements: list[Statement] | None = None) -> None:
        self.entries = entries
        self.statements = statements or []
        self._entry = {joined(term): entry for entry in entries for term in entry.terms}
        self._pattern = _words([term for entry in entries for term in entry.terms])
        self._statement = {joined(name): s for s in statements or [] for name in s.names}
        self._statements = _words([name for s in statements or [] for name in s.names])

    @staticmethod
    @cache
    def load(name: str) -> Glossary:
        """``"shipped"``, a JSON file's path, or ``""`` (an empty glossary)."""
        if not name:
            return Glossary([])
        path = SHIPPED if name == "shipped" else Path(name)
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            return Glossary([Entry(tuple(e["terms"]), tuple(e.get("parts", ())), e.get("statement", ""))
                             for e in raw["entries"]],
                            [Statement(tuple(s["names"]), tuple(t.lower() for t in s["titles"]))
                             for s in raw.get("statements", [])])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ConfigurationError(f"BOOKRAG_GLOSSARY={name!r} is not a readable glossary ({exc}); expected "
                              '{"entries": [{"terms": [...], "parts": [...]}, ...], '
                              '"statements": [{"names": [...], "titles": [...]}, ...]}') from exc

    @staticmethod
    def merged(glossaries: list[Glossary]) -> Glossary:
        """One glossary of the entries and statements of several (a term in two: the later one's)."""
        return Glossary([e for g in glossaries for e in g.entries], [s for g in glossaries for s in g.statements])

    def items(self, question: str) -> tuple[list[str], tuple[int, int]]:
        """The line items ``question`` asks for (metrics replaced by their parts), each once, in order, and the
        stretch of the question from the first term found to the last."""
        if self._pattern is None:
            return [], (0, 0)
        found = list(self._pattern.finditer(question))
        items: list[str] = []
        for match in found:
            entry = self._entry[joined(match.group(1))]
            for item in entry.parts or (match.group(1),):
                if item.lower() not in (i.lower() for i in items):
                    items.append(item)
        return items, ((found[0].start(), found[-1].end()) if found else (0, 0))

    def sub_questions(self, question: str) -> list[str]:
        """One question per item where ``question`` names two items or more (at most 4), else none."""
        items, (start, end) = self.items(question)
        if len(items) < 2:
            return []
        return [question[:start] + item + question[end:] for item in items[:MAX_ITEMS]]

    def titles(self, question: str) -> list[str]:
        """The titles of the statements ``question`` names ("based on the balance sheet"), then of those that
        report a line item it asks for ("return on assets": net income, the income statement; total assets, the
        balance sheet), each once; none where it names neither."""
        if self._statements is None:
            return []
        named = [self._statement[joined(m.group(1))] for m in self._statements.finditer(question)]
        named += [self._statement[joined(entry.statement)] for item in self.items(question)[0]
                  if (entry := self._entry.get(joined(item))) and joined(entry.statement) in self._statement]
        return list(dict.fromkeys(t for statement in named for t in statement.titles))
