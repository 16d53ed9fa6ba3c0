// In-memory projections currently held by GDS, with the heap each holds (GDS's own accounting) and when each was
// made (seconds since the epoch).
CALL gds.graph.list() YIELD graphName, nodeCount, relationshipCount, sizeInBytes, creationTime
RETURN graphName AS graph_name, nodeCount AS node_count, relationshipCount AS relationship_count,
       sizeInBytes AS size_bytes, creationTime.epochMillis / 1000.0 AS created
