"""Keywords of passages without a model, and their stems (the layout layer's ``HAS_KEYWORD`` and ``HAS_STEM``).

    kw = keywords_by_passage(["Net sales grew in North America ...", "Operating income ..."], top=8)
    kw[0]                 # ["north america", "net sales", ...]: phrases first, by TF-IDF over the document
    stem("net sales")     # "net sale"

Candidate phrases are the two- and three-word n-grams of runs of content words between stopwords, digits and punctuation (a
cheap stand-in for noun phrases, as RAKE does); single words count too. Each passage keeps its ``top``
candidates by TF-IDF, with the IDF taken over the document's passages, so terms that every passage has (the
company's name in a 10-K) fall out. Stems are Snowball's English stems, word by word: ``(:Keyword)`` nodes that
share a ``(:Stem)`` are variants of one term ("operating lease", "operating leases").
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

import snowballstemmer

STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being below between
both but by can could did do does doing down during each either else etc few for from further had has have
having he her here hers herself him himself his how however i if in into is it its itself just least less
like may me might more most much must my myself neither no nor not now of off on once only or other otherwise
our ours ourselves out over own per rather same shall she should since so some such than that the their
theirs them themselves then there these they this those though through thus to too under until up upon us
very via was we were what when where whether which while who whom whose why will with within without would
yet you your yours yourself yourselves page pages see including include includes included within whereas
one two three four five six seven eight nine ten first second third new use used using certain various
""".split())
_WORD = re.compile(r"[A-Za-z][A-Za-z'’\-]*[A-Za-z]|[A-Za-z]")
_BREAK = re.compile(r"[^A-Za-z'’\- ]+")
MAX_WORDS = 3
MIN_CHARS = 3


@lru_cache(maxsize=1)
def _stemmer() -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer("english")


def stem(phrase: str) -> str:
    """The phrase's words stemmed (Snowball English), lower-cased, space-joined."""
    return " ".join(_stemmer().stemWords(phrase.lower().split()))


def candidates(text: str) -> list[str]:
    """Candidate keywords of ``text``: each content word, and the 2- and 3-grams of runs of content words."""
    found: list[str] = []
    for fragment in _BREAK.split(text.lower()):
        run: list[str] = []
        for word in [*_WORD.findall(fragment), ""]:
            word = word.strip("'’-")
            if word and word not in STOPWORDS and len(word) >= 2:
                run.append(word)
                continue
            found += [w for w in run if len(w) >= MIN_CHARS]
            found += [" ".join(run[i:i + n]) for n in range(2, MAX_WORDS + 1) for i in range(len(run) - n + 1)]
            run = []
    return found


def keywords_by_passage(texts: Sequence[str], *, top: int = 8) -> list[list[str]]:
    """The ``top`` keywords of each text by TF-IDF, IDF over ``texts``; phrases get their words' weight."""
    counts = [Counter(candidates(t)) for t in texts]
    df = Counter(term for c in counts for term in c)
    n = len(texts)
    out = []
    for c in counts:
        scored = {term: tf * math.log((n + 1) / (df[term] + 0.5)) * (1 + 0.5 * term.count(" "))
                  for term, tf in c.items()}
        out.append([t for t, s in sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))[:top] if s > 0])
    return out
