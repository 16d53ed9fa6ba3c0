"""The knowledge graph: entity and relation extraction, gradient-based entity resolution, GT-Links."""
