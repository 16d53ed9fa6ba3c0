"""Indexing: the pipeline (parse -> tree -> Neo4j -> embeddings) and the library of indexed documents."""
