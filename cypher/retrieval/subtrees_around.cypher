// Lift tree nodes $node_keys to their deepest enclosing section at depth <= $depth (a node outside any
// section stands for itself) and return the whole subtree of each such root.
MATCH (n:TreeNode) WHERE n.key IN $node_keys
OPTIONAL MATCH (s:Section)-[:HAS_CHILD*0..8]->(n)
WHERE s.depth <= $depth
WITH n, s ORDER BY s.depth DESC
WITH n, head(collect(s)) AS section
WITH DISTINCT coalesce(section, n) AS root
MATCH (root)-[:HAS_CHILD*0..]->(m:TreeNode)
RETURN DISTINCT m.key AS key, root.key AS root
