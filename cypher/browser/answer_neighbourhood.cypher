// The neighbourhood of an answer's evidence: the evidence nodes ($nodes: tree-node keys, or the layout layer's
// passages and table rows, shown with the blocks they cover and the table they belong to), their sections, and
// the question's linked entities ($seeds: entity keys; the seeds PageRank started from): their GT-Links to the
// evidence, and for each evidence node the strongest one-hop bridge from a seed to an entity it mentions. Not
// every entity the evidence mentions: on a 10-K page that drew hundreds of co-mention edges.
// `bookrag browse --answer-trace answer.json` fills both from `bookrag ask --json` (any method).
WITH $nodes AS nodes, $seeds AS seeds
CALL (nodes) {
  MATCH (n:TreeNode) WHERE n.key IN nodes
  RETURN n, null AS unit
  UNION
  MATCH unit = (p:Passage)-[:COVERS]->(n:TreeNode) WHERE p.key IN nodes
  RETURN n, unit
  UNION
  MATCH unit = (n:TreeNode)-[:HAS_ROW]->(r:TableChunk) WHERE r.key IN nodes
  RETURN n, unit
}
WITH n, unit, seeds
OPTIONAL MATCH up = (:Section)-[:HAS_CHILD]->(n)
OPTIONAL MATCH gt = (seed:Entity)-[:MENTIONED_IN]->(n) WHERE seed.key IN seeds
CALL (n, seeds) {
  OPTIONAL MATCH bridge = (seed:Entity)-[r:RELATED|CONTAINED_IN]-(e:Entity)-[:MENTIONED_IN]->(n)
  WHERE seed.key IN seeds AND NOT e.key IN seeds
  RETURN bridge ORDER BY coalesce(r.weight, 0) DESC LIMIT 1
}
RETURN n, unit, up, gt, bridge
