// The entities behind GDS node ids $ids (a stream's nodeId column of an entity-graph projection): key, name,
// type, their GT-Links (mentions) and the top-level section holding most of them (chapter, null when none;
// a tie goes to the earlier section).
// Columns: nodeId, key, name, type, mentions, chapter
UNWIND $ids AS id
WITH id, gds.util.asNode(id) AS e
OPTIONAL CALL (e) {
  MATCH (e)-[:MENTIONED_IN]->(:TreeNode)<-[:HAS_CHILD*0..]-(c:Section)
  WHERE c.depth = 1
  WITH c, count(*) AS in_chapter
  ORDER BY in_chapter DESC, c.order
  LIMIT 1
  RETURN c.title AS chapter
}
RETURN id AS nodeId, e.key AS key, e.name AS name, e.type AS type, COUNT { (e)-[:MENTIONED_IN]->() } AS mentions,
       chapter
