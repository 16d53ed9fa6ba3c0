// Select_by_Entity and the offline Select_by_Section in one round trip: where selections start, the roots
// chosen within a budget, and the keys of the whole subtrees below them, in one record.
// Where selections start: each node GT-Linked to an entity of $entity_keys, and each tree node of $node_keys
// (the offline Select_by_Section: the blocks nearest to the question, retrieval/document_blocks.py). Each is lifted to
// its deepest enclosing section at depth <= $depth; or to its nearest enclosing section when that one holds
// more than $max_nodes nodes (documents whose top levels are single wrappers); or to itself outside any
// section. One candidate per (tag, root): tag = the entity (with its mention count) or the node it came from,
// and the root's subtree size.
// The roots are taken most specific first (fewest mentions, then tag, then smallest subtree), each while the
// selection stays within $budget nodes (null: no budget); the first is always taken.
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
WITH tag, mentions, root, 1 + coalesce(root.descendants, COUNT { (root)-[:HAS_CHILD*]->() }) AS size
ORDER BY mentions, tag, size
WITH reduce(picked = {roots: [], total: 0}, c IN collect({root: root.key, size: size}) |
       CASE WHEN c.root IN picked.roots
                 OR (size(picked.roots) > 0 AND $budget IS NOT NULL AND picked.total + c.size > $budget)
            THEN picked
            ELSE {roots: picked.roots + c.root, total: picked.total + c.size} END) AS picked
UNWIND picked.roots AS key
MATCH (r:TreeNode {key: key})-[:HAS_CHILD*0..]->(m:TreeNode)
RETURN collect(DISTINCT m.key) AS rows
