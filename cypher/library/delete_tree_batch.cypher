// Delete up to $batch tree nodes of a document (with their relationships); call until it returns 0.
MATCH (n:TreeNode {doc_key: $doc_key})
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted
