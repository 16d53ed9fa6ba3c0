"""Indexing: the pipeline (parse -> tree -> Neo4j -> embeddings -> knowledge graph) and the tree's writes."""
