// Tree edges of one batch: (parent)-[:HAS_CHILD {order}]->(child); the parent is the Document or a Section.
UNWIND $rows AS row
MATCH (c:TreeNode {key: row.child})
OPTIONAL MATCH (pd:Document {key: row.parent})
OPTIONAL MATCH (pt:TreeNode {key: row.parent})
WITH c, row, coalesce(pd, pt) AS p
MERGE (p)-[r:HAS_CHILD]->(c)
SET r.order = row.order
RETURN count(r) AS written
