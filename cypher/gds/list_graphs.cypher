// In-memory projections currently held by GDS, with the heap each holds (GDS's own accounting).
CALL gds.graph.list() YIELD graphName, nodeCount, relationshipCount, sizeInBytes
RETURN graphName AS graph_name, nodeCount AS node_count, relationshipCount AS relationship_count,
       sizeInBytes AS size_bytes
