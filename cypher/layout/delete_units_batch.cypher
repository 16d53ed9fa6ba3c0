// Delete up to $batch passages and table rows of document $doc_key (with their edges); call until it returns 0.
CALL () {
  MATCH (n:Passage {doc_key: $doc_key}) RETURN n
  UNION
  MATCH (n:TableChunk {doc_key: $doc_key}) RETURN n
}
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted
