// Passages of one batch: $rows of {key, doc_key, ordinal, text, heading, section, page_start, page_end, blocks,
// page_keys, words, embedding}, with COVERS {order} to their blocks and ON_PAGE to their pages.
UNWIND $rows AS row
MERGE (p:Passage {key: row.key})
SET p.doc_key = row.doc_key, p.ordinal = row.ordinal, p.text = row.text, p.heading = row.heading,
    p.section_key = row.section, p.page_start = row.page_start, p.page_end = row.page_end, p.words = row.words,
    p.blocks = size(row.blocks)
WITH p, row
CALL db.create.setNodeVectorProperty(p, 'embedding', row.embedding)
CALL (p, row) {
  UNWIND range(0, size(row.blocks) - 1) AS i
  MATCH (b:TreeNode {key: row.blocks[i]})
  MERGE (p)-[c:COVERS]->(b)
  SET c.order = i
}
CALL (p, row) {
  UNWIND row.page_keys AS page
  MATCH (pg:Page {key: page})
  MERGE (p)-[:ON_PAGE]->(pg)
}
RETURN count(p) AS written
