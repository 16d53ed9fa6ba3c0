// Select_by_Entity, first half: for each entity of $entity_keys, the subtree roots its GT-Linked nodes lift
// to: the deepest enclosing section at depth <= $depth, or the nearest enclosing section when that one holds
// more than $max_nodes nodes (documents whose top levels are single wrappers), or the node itself outside
// any section; with each root's subtree size and the entity's mention count. The caller picks roots within
// a budget, most specific entities first, and reads their subtrees (retrieval/select_by_section).
MATCH (e:Entity)-[:MENTIONED_IN]->(n:TreeNode)
WHERE e.key IN $entity_keys
OPTIONAL MATCH (s:Section)-[:HAS_CHILD*0..12]->(n)
WITH e, n, s ORDER BY s.depth DESC
WITH e, n, collect(s) AS enclosing
WITH e, n, head(enclosing) AS nearest, head([x IN enclosing WHERE x.depth <= $depth]) AS at_depth
WITH DISTINCT e, n, nearest, at_depth
WITH e, n, nearest, at_depth,
     CASE WHEN at_depth IS NULL THEN 0
          ELSE coalesce(at_depth.descendants, COUNT { (at_depth)-[:HAS_CHILD*]->() }) END AS size
WITH DISTINCT e, CASE WHEN at_depth IS NOT NULL AND size <= $max_nodes THEN at_depth
                      ELSE coalesce(nearest, n) END AS root
RETURN e.key AS entity, coalesce(e.mentions, 0) AS mentions, root.key AS root,
       1 + coalesce(root.descendants, COUNT { (root)-[:HAS_CHILD*]->() }) AS size
