// In-memory projections currently held by GDS.
CALL gds.graph.list() YIELD graphName, nodeCount, relationshipCount
RETURN graphName AS graph_name, nodeCount AS node_count, relationshipCount AS relationship_count
