// Tree nodes of one batch: MERGE on the content-hash key (static label TreeNode, backed by a uniqueness
// constraint), then add the node's kind label. $rows[].label comes from an allow-list in the code.
UNWIND $rows AS row
MERGE (n:TreeNode {key: row.key})
SET n += row.props
SET n:$(row.label)
RETURN count(n) AS written
