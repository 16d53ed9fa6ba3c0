// Lift tree nodes $node_keys to their deepest enclosing section at depth <= $depth (a node outside any
// section stands for itself); when that section holds more than $max_nodes nodes (a document whose top
// levels are single wrappers), to its nearest enclosing section instead. Return the whole subtree of each root.
MATCH (n:TreeNode) WHERE n.key IN $node_keys
OPTIONAL MATCH (s:Section)-[:HAS_CHILD*0..12]->(n)
WITH n, s ORDER BY s.depth DESC
WITH n, collect(s) AS enclosing
WITH n, head(enclosing) AS nearest, head([x IN enclosing WHERE x.depth <= $depth]) AS at_depth
WITH DISTINCT n, nearest, at_depth
WITH n, nearest, at_depth,
     CASE WHEN at_depth IS NULL THEN 0
          ELSE coalesce(at_depth.descendants, COUNT { (at_depth)-[:HAS_CHILD*]->() }) END AS size
WITH DISTINCT CASE WHEN at_depth IS NOT NULL AND size <= $max_nodes THEN at_depth
                   ELSE coalesce(nearest, n) END AS root
MATCH (root)-[:HAS_CHILD*0..]->(m:TreeNode)
RETURN DISTINCT m.key AS key, root.key AS root
