// Delete up to $batch nodes of document $doc_key in the families a clone copies (with their relationships): what
// `docs delete` leaves of a clone whose copy was interrupted (pages not yet linked to it); call until it returns 0.
CALL () {
  MATCH (n:TreeNode {doc_key: $doc_key}) RETURN n
  UNION
  MATCH (n:Page {doc_key: $doc_key}) RETURN n
  UNION
  MATCH (n:Entity {doc_key: $doc_key}) RETURN n
  UNION
  MATCH (n:Passage {doc_key: $doc_key}) RETURN n
  UNION
  MATCH (n:TableChunk {doc_key: $doc_key}) RETURN n
  UNION
  MATCH (n:TableOfContents {doc_key: $doc_key}) RETURN n
}
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted
