"""bookrag-neo4j: BookRAG (tree + knowledge graph + GT-Links) question answering over long documents, on Neo4j.

    from bookrag_neo4j import BookRAG

    rag = BookRAG.from_env()
    rag.index("report.pdf")
    answer = rag.ask("What were net sales in 2017?", doc="report.pdf")
    print(answer.text, [c.label() for c in answer.citations])
"""

from .config import Settings
from .errors import BookRAGError

__version__ = "0.1.0"
__all__ = ["BookRAG", "BookRAGError", "Settings", "__version__"]


def __getattr__(name: str):  # BookRAG is imported on first use: `import bookrag_neo4j` stays light
    if name == "BookRAG":
        from .sdk import BookRAG

        return BookRAG
    raise AttributeError(name)
