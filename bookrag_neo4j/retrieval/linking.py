"""Entity linking: the graph entities a question's entities stand for, found in Neo4j over each document's own
entities (the same name, or an embedding within the link threshold).

    links = await link_entities(db, doc, ["vega"], [vector], threshold=0.875, top=3)
    links[0]   # [(entity key, score), ...], best first: 1.0 for the same name, else (1 + cos) / 2

Exact over the document, so a document's links do not depend on the library around it (a vector index's top k
spans the library); no entity or embedding is read into the client.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..db.client import Neo4jClient
from ..db.vectors import vector_query
from ..library.documents import Document

SCORE_DIGITS = 6  # links compared across documents by rounded score: a float's last bits decide no order


async def link_entities(db: Neo4jClient, doc: Document, names: Sequence[str], vectors: Sequence[Sequence[float]],
                        *, threshold: float, top: int, engine: str = "auto") -> list[list[tuple[str, float]]]:
    """For each question entity (its normalised name and embedding), the best ``top`` entities of ``doc`` with
    that name (score 1.0) or a similarity of at least ``threshold``, as (key, score), best first, ties by key
    (``retrieval/link_entities``)."""
    if not names:
        return []
    entities = [{"name": name, "vector": list(map(float, vector))} for name, vector in zip(names, vectors, strict=True)]
    query = await vector_query(db, "retrieval/link_entities", engine=engine)  # in the plugin where it is
    found = dict(await db.read_rows(query, doc_key=doc.key, entities=entities, threshold=threshold, top=top))
    return [[(key, round(score, SCORE_DIGITS)) for key, score in found.get(i, [])] for i in range(len(names))]
