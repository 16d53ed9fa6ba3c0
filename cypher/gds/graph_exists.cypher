// Whether the GDS graph catalog holds a projection named $graph_name.
CALL gds.graph.exists($graph_name) YIELD exists
RETURN exists
