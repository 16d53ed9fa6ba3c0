// Edges between tree nodes of the layout layer: $rows of {a, b} keys, $type from an allow-list in the code
// (NEXT_SECTION between consecutive sections, REFERS_TO from a text block to the table or image it names).
UNWIND $rows AS row
MATCH (a:TreeNode {key: row.a})
MATCH (b:TreeNode {key: row.b})
MERGE (a)-[:$($type)]->(b)
RETURN count(*) AS written
