// Drop an in-memory projection; no error when it is already gone.
CALL gds.graph.drop($graph_name, false) YIELD graphName
RETURN graphName AS graph_name
