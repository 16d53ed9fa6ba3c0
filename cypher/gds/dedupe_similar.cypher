// KNN writes a→b and b→a for mutual neighbours: keep one edge a pair (from the smaller key), for document $doc_key.
CALL () {
  MATCH (n:Passage {doc_key: $doc_key}) RETURN n
  UNION
  MATCH (n:TableChunk {doc_key: $doc_key}) RETURN n
  UNION
  MATCH (n:TreeNode {doc_key: $doc_key}) WHERE n:Table OR n:Image RETURN n
}
MATCH (n)-[r:SIMILAR]->(m)-[:SIMILAR]->(n)
WHERE n.key > m.key
DELETE r
RETURN count(r) AS deleted
