"""Lexical search in the client: Okapi BM25 over a set of passages, with the statistics of the passages given or
of a whole collection (a document's blocks). Neo4j's full-text index does the library-wide lexical search
(``route_documents``); this scores the candidates a method already holds.

    bm25_scores("tax rate 2022", passages)                         # IDF over these passages
    bm25_scores("tax rate 2022", passages, stats=LexicalStats.of(all_blocks))   # over the document
    lexicon = Postings.of(all_blocks); lexicon.bm25("tax rate 2022")              # every block, kept postings

The one home of BM25: tokens, statistics, postings and the formula (a document's blocks and its tables' rows
keep their :class:`Postings`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

_TOKEN = re.compile(r"\w+", re.UNICODE)


def tokens(text: str) -> list[str]:
    """The lower-cased word tokens BM25 counts."""
    return _TOKEN.findall(text.lower())


@dataclass(frozen=True)
class LexicalStats:
    """A collection's BM25 statistics: how many passages, their mean length in tokens, and in how many of them
    each term occurs."""

    blocks: int
    average_length: float
    document_frequency: Mapping[str, int]

    @classmethod
    def of(cls, texts: Sequence[str]) -> LexicalStats:
        """The statistics of ``texts``."""
        df: Counter[str] = Counter()
        total = 0
        for text in texts:
            words = tokens(text)
            total += len(words)
            df.update(set(words))
        return cls(blocks=len(texts), average_length=total / len(texts) if texts else 1.0, document_frequency=dict(df))


def idf(stats: LexicalStats, term: str) -> float:
    """BM25's inverse document frequency of ``term`` in the collection ``stats`` describes (never negative)."""
    seen = min(stats.document_frequency.get(term, 0), stats.blocks)
    return math.log((stats.blocks - seen + 0.5) / (seen + 0.5) + 1.0)


@dataclass(frozen=True)
class Postings:
    """Term postings of a sequence of texts: for each term, the rows of the texts it occurs in and its count in
    each; each text's length in tokens; and the texts' own statistics. One question's BM25 over thousands of
    texts is then a few array operations."""

    terms: Mapping[str, tuple[np.ndarray, np.ndarray]]  # term -> (rows, counts)
    lengths: np.ndarray
    stats: LexicalStats

    @classmethod
    def of(cls, texts: Iterable[str], *, only: set[str] | None = None) -> Postings:
        """The postings of ``texts``; with ``only``, of those terms alone (and their statistics: enough for one
        query's BM25, without an array for every other word)."""
        lists: dict[str, tuple[list[int], list[int]]] = {}
        lengths = []
        for i, text in enumerate(texts):
            words = tokens(text)
            lengths.append(len(words))
            counts = Counter(words)  # counted in C; then only the wanted terms are kept
            for term, count in (counts.items() if only is None else ((t, counts[t]) for t in only if t in counts)):
                found = lists.setdefault(term, ([], []))
                found[0].append(i)
                found[1].append(count)
        stats = LexicalStats(blocks=len(lengths), average_length=sum(lengths) / len(lengths) if lengths else 1.0,
                             document_frequency={term: len(rows) for term, (rows, _) in lists.items()})
        return cls(terms={t: (np.array(r, dtype=np.int64), np.array(c, dtype=np.float64)) for t, (r, c) in lists.items()},
                   lengths=np.array(lengths, dtype=np.float64), stats=stats)

    def bm25(self, query: str, *, stats: LexicalStats | None = None, k1: float = 1.5, b: float = 0.75) -> np.ndarray:
        """Okapi BM25 of every text for the query (in row order), with IDF and mean length of ``stats`` (default:
        these texts' own)."""
        stats = stats or self.stats
        norm = k1 * (1 - b + b * self.lengths / (stats.average_length or 1.0))
        scores = np.zeros(len(self.lengths))
        for term in tokens(query):
            if (found := self.terms.get(term)) is not None:
                rows, counts = found
                scores[rows] += idf(stats, term) * counts * (k1 + 1) / (counts + norm[rows])
        return scores


def bm25_scores(query: str, passages: Sequence[str], *, k1: float = 1.5, b: float = 0.75,
                stats: LexicalStats | None = None) -> list[float]:
    """Okapi BM25 of each passage for the query, with IDF and mean length over the given passages, or over the
    collection ``stats`` describes (the passages' own term counts either way)."""
    if not passages:
        return []
    return Postings.of(passages, only=set(tokens(query))).bm25(query, stats=stats, k1=k1, b=b).tolist()
