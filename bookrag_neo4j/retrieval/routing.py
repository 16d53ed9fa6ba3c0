"""Route a question over many documents to the few best placed to answer it, so that what a question reads
does not grow with the library.

    routing = named_documents("What were Best Buy's FY2019 inventories?", documents)  # by their cards
    routing = await route(db, documents, question, vector, keep=5)   # .documents, .steps, .lead

A question that names documents by their cards (:mod:`bookrag_neo4j.library.cards`: an issuer or another name, and
a year) reads those: of each issuer it names (cards sharing a name are one issuer's, and answer to each other's
names), the filings whose period is the latest year it names (a filing covers the years before it), else those of
any year it names, else all of that issuer's. Otherwise:

The library's vector and full-text indexes (which span the library by design) rank blocks; each document scores
by reciprocal-rank fusion over its blocks, per square root of its size (``cypher/retrieval/route_documents.cypher``),
twice that when its card covers a year the question names. The method then runs on the chosen documents as it runs
on one: exact per document. A scope of ``keep`` documents or fewer is not routed,
nor is a global question (a count or a list reads every document; :class:`~bookrag_neo4j.methods.Retriever`).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..db.client import Neo4jClient
from ..db.lucene import lucene_terms
from ..library.cards import issuers, named_in, years_in
from ..library.documents import Document
from .plan import TraceStep

log = logging.getLogger(__name__)

ROUTE = "Route"  # the trace step that names the documents a question read
HITS = 100  # blocks each index gives the routing
RRF_K = 60  # reciprocal-rank fusion's constant
YEAR_WEIGHT = 2.0  # a document whose card covers a year the question names weighs this much more
LEAD_RATIO = 2.0  # a document routed this many times above every other leads the evidence


@dataclass(frozen=True)
class Routing:
    """The documents a question reads, the ``Route`` trace step saying why (none when all are read), and the
    document whose evidence comes first (``lead``), when the route ranks it far above the others."""

    documents: list[Document]
    steps: list[TraceStep] = field(default_factory=list)
    lead: str | None = None


async def route(db: Neo4jClient, documents: Sequence[Document], question: str, vector: Sequence[float], *,
                keep: int, seconds: float = 0.0) -> Routing:
    """The ``keep`` documents of ``documents`` whose blocks rank best for the question in the vector and full-text
    indexes (all of them when there are no more than ``keep``), and a ``Route`` trace step naming them (``seconds``:
    the question's embedding, added to the step's time). When neither index finds a block of the scope, the first
    ``keep`` by name are read. The first leads when it scores :data:`LEAD_RATIO` times the second or more: a page of
    a document routed far below must not come first on a small difference in text score."""
    if len(documents) <= keep:
        return Routing(list(documents))
    began = time.perf_counter()
    by_key = {d.key: d for d in documents}
    ranked = await db.read_rows("retrieval/route_documents", doc_keys=list(by_key), vector=list(map(float, vector)),
                                   query=lucene_terms(question), top=HITS, k=RRF_K)
    years = set(years_in(question))
    dated = {d.key for d in documents if d.card and years & set(d.card.years)}  # its card covers a year named
    scores = {key: score * (YEAR_WEIGHT if key in dated else 1.0) for key, score in ranked}
    best = sorted(scores, key=lambda key: (-scores[key], key))
    chosen = [by_key[key] for key in best[:keep]] or list(documents[:keep])
    lead = best[0] if best and scores[best[0]] > 0 and (
        len(best) == 1 or scores[best[0]] >= LEAD_RATIO * scores[best[1]]) else None
    details = [f"{d.name}: {scores.get(d.key, 0.0):.4f}" + (" (its period is named)" if d.key in dated else "") +
               (f" (leads: {LEAD_RATIO:g}× the next or more)" if d.key == lead else "") for d in chosen]
    log.info("the question reads %d of %d documents: %s", len(chosen), len(documents), ", ".join(d.name for d in chosen))
    step = TraceStep(step="route", operator=ROUTE, seconds=round(time.perf_counter() - began + seconds, 4),
                     model_seconds=round(seconds, 4), details=details,
                     output=f"{len(chosen)} of {len(documents)} documents (BOOKRAG_ROUTE_DOCUMENTS)")
    return Routing(chosen, [step], lead)


def named_documents(question: str, documents: Sequence[Document]) -> Routing:
    """The documents the question names by their cards (see the module docstring) and a ``Route`` step saying why
    each was chosen; all of ``documents`` and no step when it names none. None leads: each was named."""
    began = time.perf_counter()
    years = years_in(question)
    named: dict[int, list[tuple[Document, str]]] = {}  # by issuer: by the names its cards share, or the one used
    spelt: dict[str, int] = {}
    for doc, widened in zip(documents, issuers([d.card for d in documents]), strict=True):
        if widened is not None and (name := named_in(question, widened[1])):
            issuer = spelt.setdefault(re.sub(r"\W|\band\b", "", name.casefold()), widened[0])
            named.setdefault(issuer, []).append((doc, name))
    if not named:
        return Routing(list(documents))
    chosen: list[tuple[Document, str]] = []
    for filings in named.values():
        latest = [f for f in filings if years and f[0].card and f[0].card.years[:1] == [max(years)]]
        any_year = [f for f in filings if f[0].card and set(years) & set(f[0].card.years)]
        chosen += latest or any_year or filings
    details = [f"{doc.name}: the question names {name!r}" + (
        f" and {', '.join(str(y) for y in years if doc.card and y in doc.card.years)}"
        if doc.card and set(years) & set(doc.card.years) else "") for doc, name in chosen]
    log.info("the question names %d of %d documents: %s", len(chosen), len(documents), "; ".join(details))
    step = TraceStep(step="route", operator=ROUTE, details=details, seconds=round(time.perf_counter() - began, 4),
                     output=f"{len(chosen)} of {len(documents)} documents, by name")
    return Routing([doc for doc, _ in chosen], [step])
