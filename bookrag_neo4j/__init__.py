"""bookrag-neo4j: BookRAG (tree + knowledge graph + GT-Links) question answering over long documents, on Neo4j.

    from bookrag_neo4j import Settings
    from bookrag_neo4j.server import start_server

    status = start_server(Settings())   # Neo4j 5.26 + GDS: external, Docker, or assembled from Maven Central
"""

from .config import Settings
from .errors import BookRAGError

__version__ = "0.1.0"
__all__ = ["BookRAGError", "Settings", "__version__"]
