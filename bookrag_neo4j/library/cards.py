"""A document's card: what it is (title, issuer, kind, period), read at index time and edited by its user, so that a
question over a whole library can name the document it means ("Best Buy's FY2019 inventories").

    card = doc.card                                   # DocumentCard(issuer='Best Buy', kind='10-K', period='FY2019', ...)
    named_in("What were Best Buy's FY2019 inventories?", card)   # True

The card lives on the ``(:Document)`` node as ``card_*`` properties (full-text index ``document_card``); fields a user
set (``bookrag docs set``) are listed in ``card_edited`` and never overwritten by a later reading. Names are compared
as words: the question's consecutive words, joined or not, must spell one of the card's names ("American Water Works"
and "AmericanWaterWorks", "Wal-Mart" and "Walmart"); a ticker only as a word with two capitals ("JnJ", "MMM").
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..errors import CardError

FIELDS = ("title", "issuer", "kind", "period", "date", "summary")  # what a user may set
_WORD = re.compile(r"[^\W_]+")
# words that end or begin a company's name without naming it
SUFFIXES = frozenset({"inc", "incorporated", "corp", "corporation", "co", "company", "companies", "ltd", "limited",
                      "plc", "llc", "lp", "sa", "ag", "nv", "the", "holdings", "group", "international", "stores"})
MAX_NAME_WORDS = 5
# first words of company names that name no company alone
GENERIC = frozenset({"american", "general", "united", "national", "first", "international", "global", "great",
                     "southern", "northern", "western", "eastern", "central", "royal", "standard", "public", "federal",
                     "capital", "energy", "health", "financial", "digital", "advanced", "applied", "consolidated",
                     "universal", "pacific", "atlantic", "world", "china", "japan", "canadian", "british", "french"})
_TICKER = re.compile(r"[A-Z]{2,5}")


class DocumentCard(BaseModel):
    """What a document is. ``years``: the years its period may be called by (a fiscal year ending in January
    is the year before too), the first the period's own; ``aliases``: other names (tickers, the file name's);
    ``source``: where each field was read (``cover``, ``metadata``, ``file name``, ``user``, ``llm``)."""

    model_config = ConfigDict(frozen=True)

    title: str = ""
    issuer: str = ""
    aliases: list[str] = Field(default_factory=list)
    kind: str = ""
    period: str = ""
    years: list[int] = Field(default_factory=list)
    date: str = ""
    summary: str = ""
    source: dict[str, str] = Field(default_factory=dict)
    edited: list[str] = Field(default_factory=list)

    def properties(self) -> dict[str, Any]:
        """As the Document node stores it, with ``card_text`` for the full-text index."""
        text = " | ".join(v for v in (self.title, self.issuer, " ".join(self.aliases), self.kind, self.period,
                                      self.date, self.summary) if v)
        return {"card_title": self.title, "card_issuer": self.issuer, "card_aliases": self.aliases,
                "card_kind": self.kind, "card_period": self.period, "card_years": self.years, "card_date": self.date,
                "card_summary": self.summary, "card_source": [f"{k}={v}" for k, v in self.source.items()],
                "card_edited": self.edited, "card_text": text}

    @classmethod
    def of(cls, node: dict[str, Any]) -> DocumentCard | None:
        """The card a Document node's properties hold, or None before one was read."""
        if "card_kind" not in node:
            return None
        source = dict(item.split("=", 1) for item in node.get("card_source") or [] if "=" in item)
        return cls(title=node.get("card_title") or "", issuer=node.get("card_issuer") or "",
                   aliases=list(node.get("card_aliases") or []), kind=node.get("card_kind") or "",
                   period=node.get("card_period") or "", years=list(node.get("card_years") or []),
                   date=node.get("card_date") or "", summary=node.get("card_summary") or "", source=source,
                   edited=list(node.get("card_edited") or []))

    def edit(self, **fields: str | None) -> DocumentCard:
        """This card with the fields a user gave (None: unchanged), marked as the user's; a period given anew
        gives the years it names."""
        given = {k: v.strip() for k, v in fields.items() if v is not None}
        unknown = set(given) - set(FIELDS)
        if unknown:
            raise CardError(f"a card has no field {', '.join(sorted(unknown))}; it has {', '.join(FIELDS)}")
        update: dict[str, Any] = dict(given)
        if "period" in given:
            update["years"] = years_in(given["period"])
        if "issuer" in given:
            update["aliases"] = [a for a in self.aliases if self.source.get("aliases") == "user"]
        return self.model_copy(update=update | {
            "source": self.source | dict.fromkeys(given, "user"),
            "edited": sorted(set(self.edited) | set(given))})


def name_words(name: str) -> str:
    """A company's name as lower-case words without corporate suffixes: "BEST BUY CO., INC." -> "best buy"."""
    words = [w for w in _WORD.findall(name.casefold().replace("&", " and "))]
    while words and words[-1] in SUFFIXES:
        words.pop()
    while words and words[0] in SUFFIXES:
        words.pop(0)
    return " ".join(words[:MAX_NAME_WORDS])


_YEAR = re.compile(r"(?<![\d.$])(?:FY\s?|fiscal\s+(?:year\s+)?)?((?:19|20)\d{2})(?![\d%]|\.\d)|\bFY\s?'?(\d{2})\b",
                   re.IGNORECASE)


def years_in(text: str) -> list[int]:
    """The years a text names, in order: "2019", "FY2019", "FY 19", "fiscal 2019" (not "$2019" or "2019.5")."""
    found = [int(m.group(1)) if m.group(1) else 2000 + int(m.group(2)) for m in _YEAR.finditer(text)]
    return list(dict.fromkeys(found))


def named_in(question: str, card: DocumentCard) -> str | None:
    """The card's name the question uses, or None. Words compare in sequence, joined or not ("bestbuy" is
    "best buy"); a ticker (2-5 capitals) only as a word of the question with two capitals ("JnJ", not "cost")."""
    words = _WORD.findall(question)
    for alias in card.aliases:
        if _TICKER.fullmatch(alias) and any(w.casefold() == alias.casefold() and sum(c.isupper() for c in w) >= 2
                                            for w in words):
            return alias
    lower = [w.casefold() for w in words]
    joined = {"".join(lower[i:i + n]) for n in range(1, MAX_NAME_WORDS + 1) for i in range(len(lower) - n + 1)}
    names = [name_words(n) for n in (card.issuer, *(a for a in card.aliases if not _TICKER.fullmatch(a)))]
    lead = names[0].split()[0] if names[0] else ""  # "costco" of "costco wholesale", not "general" of "general mills"
    issuer = _WORD.findall(card.issuer.casefold())
    company = bool(issuer) and issuer[-1] in SUFFIXES  # not "university" of "University of California"
    if company and len(lead) >= 5 and lead not in GENERIC:
        names.append(lead)
    for name in dict.fromkeys(filter(None, names)):
        if len(name.replace(" ", "")) >= 2 and name.replace(" ", "") in joined:
            return name
    return None


def issuers(cards: list[DocumentCard | None]) -> list[tuple[int, DocumentCard] | None]:
    """Each card's issuer (a number shared by one issuer's documents) and the card answering to every name of the
    issuer's documents: cards that share a name (an issuer's, an alias's or a ticker) are one issuer's, so a
    ticker printed on only the newer covers names the older filings too. None for a document without a card."""
    owner: dict[str, int] = {}
    parent = list(range(len(cards)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, card in enumerate(cards):
        for name in _names(card) if card else ():
            j = owner.setdefault(name, i)
            parent[root(i)] = root(j)
    aliases: dict[int, list[str]] = {}
    for i, card in enumerate(cards):
        if card:
            aliases.setdefault(root(i), []).extend([card.issuer, *card.aliases])
    return [None if card is None else (root(i), card.model_copy(update={"aliases": list(dict.fromkeys(
        a for a in aliases[root(i)] if a and a != card.issuer))})) for i, card in enumerate(cards)]


def _names(card: DocumentCard) -> set[str]:
    """The card's names as compared: lower-case words without suffixes and spaces."""
    found = {name_words(n).replace(" ", "") for n in (card.issuer, *card.aliases)}
    return {n for n in found if len(n) >= 2}
