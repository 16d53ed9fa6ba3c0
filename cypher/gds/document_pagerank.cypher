// Personalized PageRank on a document's catalog projection $graph_name (gds/project_document_entities),
// teleporting to the entities with keys in $source_keys. One record: rows = [[GDS node id, score], ...] for the
// entities the walk reaches (score > 0); gds/projection_node_keys maps the ids to keys (read once a projection,
// not mapped again in every call). Graph_Reasoning's own call is gds/node_pagerank.
MATCH (s:Entity) WHERE s.key IN $source_keys
WITH collect(s) AS sources
CALL gds.pageRank.stream($graph_name, {
  sourceNodes: sources,
  dampingFactor: $damping,
  maxIterations: $max_iterations,
  tolerance: $tolerance,
  relationshipWeightProperty: 'weight',
  concurrency: $concurrency,
  logProgress: false
})
YIELD nodeId, score
WITH nodeId, score WHERE score > 0
RETURN collect([nodeId, score]) AS rows
