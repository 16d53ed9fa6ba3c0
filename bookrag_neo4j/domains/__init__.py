"""Domain packs: a field's vocabulary kept apart from the methods, a named choice rather than a rule on every document.

    domains = load_domains(("finance", "/path/to/legal-pack"))           # a shipped pack and one of your own
    domains.glossary.sub_questions("What is Acme's return on assets?")   # net income, total assets

A pack is a folder with ``glossary.json`` (metrics decomposed into line items, and the statements that report them, in
:mod:`bookrag_neo4j.retrieval.glossary`'s format: BookRAG's planner decomposes with it and ranks statement tables
first). ``finance`` ships here and is on by default; ``BOOKRAG_DOMAINS`` chooses shipped names or folder paths,
comma-separated, ``""`` for none. Its effect: docs/eval/finance-pack/.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..errors import ConfigurationError
from ..retrieval.glossary import Glossary

SHIPPED = Path(__file__).parent


@dataclass(frozen=True)
class Domains:
    """The chosen packs, merged."""

    names: tuple[str, ...]
    glossary: Glossary


def names_of(setting: str) -> tuple[str, ...]:
    """``BOOKRAG_DOMAINS`` as pack names or paths."""
    return tuple(name.strip() for name in setting.split(",") if name.strip())


@cache
def load_domains(names: tuple[str, ...]) -> Domains:
    """The packs ``names`` (shipped names or folders), merged; none for ``()``."""
    glossaries = []
    for name in names:
        folder = SHIPPED / name if (SHIPPED / name).is_dir() and "/" not in name else Path(name).expanduser()
        glossary = folder / "glossary.json"
        if not glossary.is_file():
            shipped = sorted(p.name for p in SHIPPED.iterdir() if p.is_dir() and not p.name.startswith("_"))
            raise ConfigurationError(f"BOOKRAG_DOMAINS: {name!r} is no domain pack (shipped: {', '.join(shipped)}; "
                                     "or a folder with a glossary.json)")
        glossaries.append(Glossary.load(str(glossary)))
    return Domains(names, Glossary.merged(glossaries))


def glossary_for(domains: str, glossary: str) -> Glossary:
    """The glossary a question is planned with: ``BOOKRAG_GLOSSARY``'s file where it names one, none for ``""``,
    else (``shipped``, the default) the chosen packs'."""
    return load_domains(names_of(domains)).glossary if glossary == "shipped" else Glossary.load(glossary)
