// Weakly connected components of projection $graph_name: the component id of each entity.
CALL gds.wcc.stream($graph_name, {concurrency: $concurrency})
YIELD nodeId, componentId
RETURN gds.util.asNode(nodeId).key AS key, componentId AS component
