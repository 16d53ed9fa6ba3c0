"""Lexical search in the client: Okapi BM25 over a set of passages, with the statistics of the passages given or
of a whole collection (a document's blocks). Neo4j's full-text index does the library-wide lexical search
(``route_documents``); this scores the candidates a method already holds.

    bm25_scores("tax rate 2022", passages)                         # IDF over these passages
    bm25_scores("tax rate 2022", passages, stats=LexicalStats.of(all_blocks))   # over the document
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

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


def bm25_scores(query: str, passages: Sequence[str], *, k1: float = 1.5, b: float = 0.75,
                stats: LexicalStats | None = None) -> list[float]:
    """Okapi BM25 of each passage for the query, with IDF and mean length over the given passages, or over the
    collection ``stats`` describes (the passages' own term counts either way)."""
    if not passages:
        return []
    terms = tokens(query)
    wanted = set(terms)
    lengths, tfs = [], []
    for passage in passages:
        words = tokens(passage)
        lengths.append(len(words))
        counts = Counter(words)  # counted in C; then only the query's terms are kept
        tfs.append(Counter({t: counts[t] for t in wanted if t in counts}))
    if stats is None:
        stats = LexicalStats(blocks=len(passages), average_length=sum(lengths) / len(lengths) or 1.0,
                             document_frequency=Counter(term for tf in tfs for term in tf))
    n, avg_len, df = stats.blocks, stats.average_length or 1.0, stats.document_frequency
    idf = {t: math.log((n - min(df.get(t, 0), n) + 0.5) / (min(df.get(t, 0), n) + 0.5) + 1.0) for t in wanted}
    return [sum(idf[t] * tf[t] * (k1 + 1) / (tf[t] + k1 * (1 - b + b * length / avg_len)) for t in terms if tf[t])
            for tf, length in zip(tfs, lengths, strict=True)]
