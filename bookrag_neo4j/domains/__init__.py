"""Domain packs: a field's vocabulary kept apart from the methods, applied to the documents of the kinds it names.

    domains = load_domains(("finance", "/path/to/legal-pack"))           # a shipped pack and one of your own
    domains.glossary_for(["10-K"]).sub_questions("What is Acme's return on assets?")   # net income, total assets
    domains.glossary_for(["paper"]).entries                              # []: finance is for filings and reports
    glossary_of(settings.retrieval, documents)                          # a question's: its documents' packs

A pack is a folder with ``glossary.json`` (metrics decomposed into line items, and the statements that report them, in
:mod:`bookrag_neo4j.retrieval.glossary`'s format: BookRAG's planner decomposes with it and ranks statement tables
first) and, in it, ``kinds``: the document kinds (a card's ``kind``, :mod:`bookrag_neo4j.library.cards`) it applies
to; a pack without ``kinds`` applies to every document. ``finance`` ships here (10-Ks, 10-Qs, 8-Ks, 20-Fs, earnings
releases, annual reports); ``BOOKRAG_DOMAINS`` chooses shipped names or folder paths, comma-separated, ``""`` for
none. A question is planned with the packs of the documents it may read, and each document's statement tables are
those of its own packs. Its effect: docs/eval/finance-pack/, docs/eval/refactor-62/ ("Domain packs by card").
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigurationError
from ..retrieval.glossary import Glossary

if TYPE_CHECKING:
    from ..library.documents import Document
    from ..setting_groups import RetrievalSettings

SHIPPED = Path(__file__).parent


@dataclass(frozen=True)
class Pack:
    """One pack: its glossary and the document kinds it applies to (``None``: every document)."""

    name: str
    glossary: Glossary
    kinds: frozenset[str] | None = None

    def applies(self, kind: str) -> bool:
        """Whether a document of card kind ``kind`` (``""``: not known) gets this pack."""
        return self.kinds is None or kind.lower() in self.kinds


@dataclass(frozen=True)
class Domains:
    """The chosen packs."""

    packs: tuple[Pack, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.packs)

    def glossary_for(self, kinds: Iterable[str] | None) -> Glossary:
        """The glossary of the packs that apply to a document of any of ``kinds`` (``None``: documents not known
        yet, every pack), merged in the packs' order."""
        return _merged(self, None if kinds is None else tuple(sorted(set(kinds))))


@cache
def _merged(domains: Domains, kinds: tuple[str, ...] | None) -> Glossary:
    return Glossary.merged([p.glossary for p in domains.packs if kinds is None or any(map(p.applies, kinds))])


def names_of(setting: str) -> tuple[str, ...]:
    """``BOOKRAG_DOMAINS`` as pack names or paths."""
    return tuple(name.strip() for name in setting.split(",") if name.strip())


@cache
def load_domains(names: tuple[str, ...]) -> Domains:
    """The packs ``names`` (shipped names or folders); none for ``()``."""
    return Domains(tuple(_pack(name) for name in names))


def _pack(name: str) -> Pack:
    folder = SHIPPED / name if (SHIPPED / name).is_dir() and "/" not in name else Path(name).expanduser()
    path = folder / "glossary.json"
    if not path.is_file():
        shipped = sorted(p.name for p in SHIPPED.iterdir() if p.is_dir() and not p.name.startswith("_"))
        raise ConfigurationError(f"BOOKRAG_DOMAINS: {name!r} is no domain pack (shipped: {', '.join(shipped)}; "
                                 "or a folder with a glossary.json)")
    kinds = json.loads(path.read_text(encoding="utf-8")).get("kinds")
    return Pack(name, Glossary.load(str(path)), None if kinds is None else frozenset(k.lower() for k in kinds))


def glossary_of(retrieval: RetrievalSettings, documents: Sequence[Document] | None) -> Glossary:
    """The glossary a question over ``documents`` gets: the settings' packs that apply to them by their cards'
    kinds (``None``: documents not known yet, every pack)."""
    kinds = None if documents is None else [d.card.kind if d.card else "" for d in documents]
    return domains_of(retrieval.domains, retrieval.glossary).glossary_for(kinds)


@cache
def domains_of(domains: str, glossary: str = "shipped") -> Domains:
    """The packs the settings choose, once a process (the glossaries merged for them are cached by it):
    ``BOOKRAG_DOMAINS``'s; ``BOOKRAG_GLOSSARY``, its former second half, still works and warns (a file: that
    glossary alone, for every document; ``""``: none)."""
    if glossary == "shipped":
        return load_domains(names_of(domains))
    warnings.warn("BOOKRAG_GLOSSARY is now part of BOOKRAG_DOMAINS (a pack folder with a glossary.json)",
                  DeprecationWarning, stacklevel=2)
    return Domains((Pack(glossary, Glossary.load(glossary)),) if glossary else ())
