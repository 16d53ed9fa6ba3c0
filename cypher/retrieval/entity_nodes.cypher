// The tree nodes GT-Linked to entities $entity_keys.
MATCH (e:Entity)-[:MENTIONED_IN]->(n:TreeNode)
WHERE e.key IN $entity_keys
RETURN DISTINCT n.key AS key
