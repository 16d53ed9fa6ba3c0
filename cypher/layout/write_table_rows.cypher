// Table rows of one batch: $rows of {key, doc_key, table, order, text, heading, page_start, page_end,
// embedding}: (:Table)-[:HAS_ROW {order}]->(:TableChunk {text: header + row}).
UNWIND $rows AS row
MATCH (t:TreeNode {key: row.table})
MERGE (r:TableChunk {key: row.key})
SET r.doc_key = row.doc_key, r.table_key = row.table, r.ordinal = row.order, r.text = row.text,
    r.heading = row.heading, r.page_start = row.page_start, r.page_end = row.page_end
MERGE (t)-[h:HAS_ROW]->(r)
SET h.order = row.order
WITH r, row
CALL db.create.setNodeVectorProperty(r, 'embedding', row.embedding)
RETURN count(r) AS written
