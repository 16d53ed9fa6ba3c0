// The heap an in-memory projection $graph_name holds (GDS's own accounting), with its node and relationship counts.
CALL gds.graph.list($graph_name) YIELD graphName, nodeCount, relationshipCount, sizeInBytes
RETURN nodeCount AS nodes, relationshipCount AS relationships, sizeInBytes AS size_bytes
