"""bookrag-neo4j: BookRAG (tree + knowledge graph + GT-Links) question answering over long documents, on Neo4j.

    from bookrag_neo4j import BookRAG

    rag = BookRAG.from_env()
    rag.index("report.pdf")
    answer = rag.ask("What were net sales in 2017?", doc="report.pdf")
    print(answer.text, [c.label for c in answer.citations])
"""

from typing import TYPE_CHECKING

from .errors import BookRAGError

if TYPE_CHECKING:
    from .config import Settings
    from .sdk import BookRAG

__version__ = "0.1.0"
__all__ = ["BookRAG", "BookRAGError", "Settings", "__version__"]


def __getattr__(name: str) -> object:
    """``BookRAG`` and ``Settings`` are imported on first use: ``import bookrag_neo4j`` (and ``bookrag --version``)
    loads neither the pipeline nor pydantic-settings."""
    if name == "BookRAG":
        from .sdk import BookRAG

        return BookRAG
    if name == "Settings":
        from .config import Settings

        return Settings
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
