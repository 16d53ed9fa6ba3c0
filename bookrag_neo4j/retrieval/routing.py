"""Route a question over many documents to the few best placed to answer it, so that what a question reads
does not grow with the library.

    chosen, step = await route(graph, documents, question, vector, keep=5)

The library's vector and full-text indexes (which span the library by design) rank blocks; each document scores
by reciprocal-rank fusion over its blocks (``cypher/retrieval/route_documents.cypher``). The method then runs on
the chosen documents as it runs on one: exact per document. A scope of ``keep`` documents or fewer is not routed,
nor is a global question (a count or a list reads every document; :class:`~bookrag_neo4j.methods.Retriever`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from ..db.client import GraphClient
from ..db.lucene import lucene_terms
from ..library.documents import Document
from .plan import TraceStep

log = logging.getLogger(__name__)

ROUTE = "Route"  # the trace step that names the documents a question read
HITS = 100  # blocks each index gives the routing
RRF_K = 60  # reciprocal-rank fusion's constant


async def route(graph: GraphClient, documents: Sequence[Document], question: str, vector: Sequence[float], *,
                keep: int, seconds: float = 0.0) -> tuple[list[Document], list[TraceStep]]:
    """The ``keep`` documents of ``documents`` whose blocks rank best for the question in the vector and full-text
    indexes (all of them when there are no more than ``keep``), and a ``Route`` trace step naming them (``seconds``:
    the question's embedding, added to the step's time). When neither index finds a block of the scope, the first
    ``keep`` by name are read."""
    if len(documents) <= keep:
        return list(documents), []
    began = time.perf_counter()
    by_key = {d.key: d for d in documents}
    ranked = await graph.read_rows("retrieval/route_documents", doc_keys=list(by_key), vector=list(map(float, vector)),
                                   query=lucene_terms(question), top=HITS, k=RRF_K)
    chosen = [by_key[key] for key, _ in ranked[:keep]] or list(documents[:keep])
    scores = dict(ranked)
    details = [f"{d.name}: {scores.get(d.key, 0.0):.4f}" for d in chosen]
    log.info("the question reads %d of %d documents: %s", len(chosen), len(documents), ", ".join(d.name for d in chosen))
    return chosen, [TraceStep(step="route", operator=ROUTE, seconds=round(time.perf_counter() - began + seconds, 4),
                              model_seconds=round(seconds, 4), details=details,
                              output=f"{len(chosen)} of {len(documents)} documents (BOOKRAG_ROUTE_DOCUMENTS)")]
