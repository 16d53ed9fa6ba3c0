// Delete up to $batch entities of document $doc_key that no other document's tree node still references
// (a GT-Link to a node of another document keeps an entity); call until it returns fewer than $batch.
MATCH (e:Entity {doc_key: $doc_key})
WHERE NOT EXISTS { (e)-[:MENTIONED_IN]->(n) WHERE n.doc_key <> $doc_key }
WITH e LIMIT $batch
DETACH DELETE e
RETURN count(*) AS deleted
