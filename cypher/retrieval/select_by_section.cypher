// Select_by_Section: the whole subtrees of the sections with keys in $section_keys.
MATCH (s:TreeNode) WHERE s.key IN $section_keys
MATCH (s)-[:HAS_CHILD*0..]->(m:TreeNode)
RETURN DISTINCT m.key AS key, s.key AS root
