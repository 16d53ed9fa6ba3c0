"""G²-Reader's content graph at index time: nodes, the Lite and LLM evolution, and the stage that writes it to
Neo4j (its question-time planning graph and readout: :mod:`bookrag_neo4j.retrieval.g2`)."""
