// (block)-[:ON_PAGE]->(page) for every page a block covers.
UNWIND $rows AS row
MATCH (n:TreeNode {key: row.node}), (p:Page {key: row.page})
MERGE (n)-[r:ON_PAGE]->(p)
RETURN count(r) AS written
