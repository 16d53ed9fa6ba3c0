"""A document whose knowledge-graph build was interrupted, as a killed ``bookrag index`` leaves it: its tree and
embeddings complete, its ``graph_status`` still 'building'. The SDK's answers over it carry a warning; the doors
(MCP, LangChain) must pass that warning on."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from bookrag_neo4j.config import Settings
from bookrag_neo4j.db.client import ConnectionInfo, Neo4jClient
from bookrag_neo4j.index.pipeline import Indexer
from bookrag_neo4j.library.catalogue import delete_document
from bookrag_neo4j.llm import Models

from .pdfs import tiny_pdf

INCOMPLETE = "the graph build is incomplete"  # what the warning says (bookrag_neo4j.methods.retriever)


@asynccontextmanager
async def interrupted_graph_document(conn: ConnectionInfo, settings: Settings, models: Models, folder: Path
                                     ) -> AsyncIterator[tuple[str, str]]:
    """A three-page document indexed LLM-free, its graph build marked as interrupted: (key, file name); deleted
    after."""
    pdf = tiny_pdf(folder / "acme-interrupted.pdf", "Acme Interrupted", "Dana Whitfield", "Norway", "turbines")
    async with Neo4jClient(conn) as db:
        report = await Indexer(db, settings, models, use_llm=False).index(pdf, knowledge_graph=False, layout=False)
        try:
            await db.run("MATCH (d:Document {key: $key}) SET d.graph_status = 'building'", {"key": report.doc_key})
            yield report.doc_key, pdf.name
        finally:
            await delete_document(db, report.doc_key)
