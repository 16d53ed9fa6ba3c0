// Personalized PageRank on a document's catalog projection $graph_name (gds/project_document_entities),
// teleporting to the entities with keys in $source_keys; GDS node ids map back to entity keys here. One record:
// rows = [[entity key, score], ...] for the entities the walk reaches (score > 0).
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
WITH nodeId, score WHERE score > 0
RETURN collect([gds.util.asNode(nodeId).key, score]) AS rows
