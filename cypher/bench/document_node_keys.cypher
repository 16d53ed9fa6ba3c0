// The keys of document $doc_key's own nodes, every family a clone copies (the labels with a key constraint and
// a doc_key), in one record; bookrag bench scale --clone copies them in batches.
CALL () {
  MATCH (n:TreeNode {doc_key: $doc_key}) RETURN n.key AS key
  UNION
  MATCH (n:Page {doc_key: $doc_key}) RETURN n.key AS key
  UNION
  MATCH (n:Entity {doc_key: $doc_key}) RETURN n.key AS key
  UNION
  MATCH (n:Passage {doc_key: $doc_key}) RETURN n.key AS key
  UNION
  MATCH (n:TableChunk {doc_key: $doc_key}) RETURN n.key AS key
  UNION
  MATCH (n:TableOfContents {doc_key: $doc_key}) RETURN n.key AS key
}
RETURN collect(key) AS rows
