// Where selections start: each tree node of $node_keys, and each node GT-Linked to an entity of
// $entity_keys, lifted to its deepest enclosing section at depth <= $depth; or to its nearest enclosing
// section when that one holds more than $max_nodes nodes (documents whose top levels are single wrappers);
// or to itself outside any section. One row per (tag, root): tag = the entity (with its mention count) or
// the node it came from, and the root's subtree size, in one record. The subtrees are read by
// retrieval/select_by_section.
CALL () {
  MATCH (e:Entity)-[:MENTIONED_IN]->(n:TreeNode) WHERE e.key IN $entity_keys
  RETURN e.key AS tag, coalesce(e.mentions, 0) AS mentions, n
  UNION
  MATCH (n:TreeNode) WHERE n.key IN $node_keys
  RETURN n.key AS tag, 0 AS mentions, n
}
OPTIONAL MATCH (s:Section)-[:HAS_CHILD*0..12]->(n)
WITH tag, mentions, n, s ORDER BY s.depth DESC
WITH tag, mentions, n, collect(s) AS enclosing
WITH tag, mentions, n, head(enclosing) AS nearest, head([x IN enclosing WHERE x.depth <= $depth]) AS at_depth
WITH tag, mentions, n, nearest, at_depth,
     CASE WHEN at_depth IS NULL THEN 0
          ELSE coalesce(at_depth.descendants, COUNT { (at_depth)-[:HAS_CHILD*]->() }) END AS size
WITH DISTINCT tag, mentions, CASE WHEN at_depth IS NOT NULL AND size <= $max_nodes THEN at_depth
                                  ELSE coalesce(nearest, n) END AS root
RETURN collect({tag: tag, mentions: mentions, root: root.key,
                size: 1 + coalesce(root.descendants, COUNT { (root)-[:HAS_CHILD*]->() })}) AS rows
