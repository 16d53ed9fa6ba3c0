// Expand: each node of $keys with the nodes just before and after it in reading order (NEXT). One record.
MATCH (n:TreeNode) WHERE n.key IN $keys
OPTIONAL MATCH (n)-[:NEXT]-(m:TreeNode)
WITH n, collect(m.key) AS neighbours
RETURN collect({key: n.key, neighbours: neighbours}) AS rows
