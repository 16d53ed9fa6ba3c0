// The neighbourhood Graph_Reasoning used for an answer: the evidence nodes ($nodes: tree-node keys), their
// sections, the entities GT-Linked to them, and the RELATED / CONTAINED_IN edges from those entities to the
// question's linked entities ($seeds: entity keys; the seeds PageRank started from).
// `bookrag browse --answer-trace answer.json` fills both from `bookrag ask --json`.
WITH $nodes AS nodes, $seeds AS seeds
MATCH (n:TreeNode) WHERE n.key IN nodes
OPTIONAL MATCH up = (:Section)-[:HAS_CHILD]->(n)
OPTIONAL MATCH gt = (e:Entity)-[:MENTIONED_IN]->(n)
OPTIONAL MATCH rel = (e)-[:RELATED|CONTAINED_IN]-(seed:Entity) WHERE seed.key IN seeds
RETURN n, up, gt, rel
