// The document's tree nodes that the tree just written does not have, with their relationships, $limit at a time:
// a re-index (--force) whose tree changed (another heading detector or model) leaves nothing of the old tree.
MATCH (n:TreeNode {doc_key: $doc_key})
WHERE NOT n.key IN $keys
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted
