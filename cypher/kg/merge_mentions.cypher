// GT-Links: each entity to the tree nodes it was extracted from.
UNWIND $rows AS row
MATCH (e:Entity {key: row.entity})
MATCH (n:TreeNode {key: row.node})
MERGE (e)-[:MENTIONED_IN]->(n)
RETURN count(*) AS written
