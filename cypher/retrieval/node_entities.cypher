// The entities GT-Linked to tree nodes $node_keys: (entity, node) pairs, for Graph_Reasoning.
MATCH (n:TreeNode) WHERE n.key IN $node_keys
MATCH (e:Entity)-[:MENTIONED_IN]->(n)
RETURN e.key AS entity, n.key AS node
