// Delete a document's pages, the chunks that versions before the layout layer wrote for the bm25/dense baselines,
// and the document itself (after its tree nodes).
MATCH (d:Document {key: $doc_key})
CALL (d) { MATCH (c:Chunk {doc_key: d.key}) DETACH DELETE c }
OPTIONAL MATCH (d)-[:HAS_PAGE]->(p:Page)
DETACH DELETE p
WITH DISTINCT d
DETACH DELETE d
RETURN count(*) AS deleted
