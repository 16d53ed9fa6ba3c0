// For Graph_Reasoning, in one row: the entities GT-Linked to tree nodes $node_keys with the nodes each is
// linked to ([entity key, [node keys]]), and (when $with_edges) the RELATED/CONTAINED_IN edges among those
// entities ([source key, target key, weight]). One row rather than one per entity: measured twice as fast.
MATCH (n:TreeNode) WHERE n.key IN $node_keys
MATCH (e:Entity)-[:MENTIONED_IN]->(n)
WITH e, collect(n.key) AS nodes
WITH collect(e) AS entities, collect([e.key, nodes]) AS links
CALL (entities) {
  UNWIND CASE WHEN $with_edges THEN entities ELSE [] END AS a
  MATCH (a)-[r:RELATED|CONTAINED_IN]->(b:Entity) WHERE b IN entities
  RETURN collect([a.key, b.key, coalesce(r.weight, 1.0)]) AS edges
}
RETURN links, edges
