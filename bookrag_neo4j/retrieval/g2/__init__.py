"""G²-Reader at question time: the planning graph (decompose, read, check, refine), its grammar, and the readout
over the content graph that :mod:`bookrag_neo4j.content` builds at index time."""
