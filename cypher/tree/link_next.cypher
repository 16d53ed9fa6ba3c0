// Reading-order edges between consecutive content blocks.
UNWIND $rows AS row
MATCH (a:TreeNode {key: row.a}), (b:TreeNode {key: row.b})
MERGE (a)-[r:NEXT]->(b)
RETURN count(r) AS written
