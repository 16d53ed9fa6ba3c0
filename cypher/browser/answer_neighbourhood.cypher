// The neighbourhood of an answer's evidence: the evidence nodes ($nodes: tree-node keys, or the layout layer's
// passages and table rows, shown with the blocks they cover and the table they belong to), their sections, the
// entities GT-Linked to them, and the RELATED / CONTAINED_IN edges from those entities to the question's
// linked entities ($seeds: entity keys; the seeds PageRank started from).
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
OPTIONAL MATCH gt = (e:Entity)-[:MENTIONED_IN]->(n)
OPTIONAL MATCH rel = (e)-[:RELATED|CONTAINED_IN]-(seed:Entity) WHERE seed.key IN seeds
RETURN n, unit, up, gt, rel
