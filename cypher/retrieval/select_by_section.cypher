// Select_by_Section: the keys of the nodes in the whole subtrees of the sections with keys in $section_keys,
// in one record.
MATCH (s:TreeNode) WHERE s.key IN $section_keys
MATCH (s)-[:HAS_CHILD*0..]->(m:TreeNode)
RETURN collect(DISTINCT m.key) AS rows
