"""G²-Reader at question time: the planning graph's DAG and grammar, and the readout over the content graph that
:mod:`bookrag_neo4j.content` builds at index time; the loop that plans and reads is the G2_Plan operator's
(:mod:`bookrag_neo4j.ops.g2_agent`)."""
