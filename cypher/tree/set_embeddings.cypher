UNWIND $rows AS row
MATCH (n:TreeNode {key: row.key})
CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
RETURN count(n) AS written
