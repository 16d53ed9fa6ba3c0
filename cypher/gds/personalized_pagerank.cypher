// Personalized PageRank on projection $graph_name, teleporting to the entities with keys in $source_keys.
MATCH (s:Entity) WHERE s.key IN $source_keys
WITH collect(s) AS sources
CALL gds.pageRank.stream($graph_name, {
  sourceNodes: sources,
  dampingFactor: $damping,
  maxIterations: $max_iterations,
  tolerance: $tolerance,
  relationshipWeightProperty: 'weight',
  concurrency: $concurrency
})
YIELD nodeId, score
RETURN gds.util.asNode(nodeId).key AS key, score
ORDER BY score DESC, key
