// Delete a document's pages and the document itself (after its tree nodes).
MATCH (d:Document {key: $doc_key})
OPTIONAL MATCH (d)-[:HAS_PAGE]->(p:Page)
DETACH DELETE p
WITH DISTINCT d
DETACH DELETE d
RETURN count(*) AS deleted
