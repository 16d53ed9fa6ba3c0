"""G²-Reader's content graph: nodes, the Lite and LLM evolution, and the stage that writes it to Neo4j."""
