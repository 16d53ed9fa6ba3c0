"""Entity names: the normalised identity key, simple singulars, acronyms.

    name_key("Large Language Models", "CONCEPT")   # 'large language model|CONCEPT'
    name_key("Acme Tools, Inc.’s", "ORGANIZATION")   # 'acme tool|ORGANIZATION'
    is_acronym("LLM", "Large Language Model")      # True

The identity of an entity inside a document is its normalised name plus its type (as in the paper's
reference code). Normalisation is deliberate: case folded, punctuation between words turned into spaces
but kept inside tokens that need it ("GPT-4" -> "gpt-4", "U.S." -> "u.s"), possessive "'s" dropped, and
each word reduced to a simple singular ("policies" -> "policy"; words ending in -ss/-us/-is and short words
are left alone). The identity also drops a company's legal form ("Inc.", "Corp.", "LLP": "Globex LLP" is "Globex").
Exact identity is what basic ER uses, what gradient ER checks before any lookup and what links a question's
entities to the graph's.
"""

from __future__ import annotations

import re
from functools import lru_cache

_SPLIT = re.compile(r"[\s,;:/()\[\]{}\"“”‘’]+|(?<!\w)['.-]|['.-](?!\w)")
_STOP = {"of", "and", "the", "for", "in", "on", "to", "a", "an", "&"}
_LEGAL_FORMS = {"inc", "incorporated", "corp", "corporation", "ltd", "llc", "llp", "lp", "l.p", "plc", "co", "gmbh"}


def _singular(word: str) -> str:
    if len(word) <= 3 or not word.isalpha() or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    if word.endswith("s"):
        return word[:-1]
    return word


@lru_cache(maxsize=1 << 16)  # entity resolution normalises the same names again and again
def normalise(name: str) -> str:
    """Lower case, punctuation between words removed, possessives dropped, words singular."""
    text = name.lower().replace("’", "'").replace("'s ", " ").removesuffix("'s")
    words = [w.strip(".-'") for w in _SPLIT.split(text)]
    return " ".join(_singular(w) for w in words if w)


def identity(name: str) -> str:
    """The normalised name without a trailing legal form (kept when it is the whole name)."""
    words = normalise(name).split()
    while len(words) > 1 and words[-1] in _LEGAL_FORMS:
        words.pop()
    return " ".join(words)


def name_key(name: str, entity_type: str) -> str:
    """The identity of an entity in its document: :func:`identity` of its name, and its type."""
    return f"{identity(name)}|{entity_type}"


def initials(name: str) -> str:
    """Upper-case initials of the significant words ("Securities and Exchange Commission" -> "SEC")."""
    words = [w for w in re.split(r"[\s\-/]+", name) if w and w.lower() not in _STOP]
    return "".join(w[0] for w in words if w[0].isalnum()).upper()


def is_acronym(short: str, long: str) -> bool:
    """Whether ``short`` abbreviates ``long`` by initials (plural "s" and dots allowed: "LLMs", "U.S.")."""
    letters = short.replace(".", "").removesuffix("s")
    if not (2 <= len(letters) <= 8 and letters.isupper() and letters.isalnum()) or len(long.split()) < 2:
        return False
    if re.search(rf"(?<![\w]){re.escape(short.lower())}(?![a-z])", long.lower()):  # "X5" / "X5's motion": a word
        return False
    return initials(long) == letters.upper()
