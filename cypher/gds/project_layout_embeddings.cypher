// Project document $doc_key's passages, table rows, tables and images that have an embedding, with the
// embedding as a node property and no relationships (for KNN), as the in-memory graph $graph_name, in key order.
// One column: the projection's map (null when no node has an embedding), read by gds.graph.project.cypher.
CALL () {
  MATCH (n:Passage {doc_key: $doc_key}) RETURN n
  UNION
  MATCH (n:TableChunk {doc_key: $doc_key}) RETURN n
  UNION
  MATCH (n:TreeNode {doc_key: $doc_key}) WHERE n:Table OR n:Image RETURN n
}
WITH n WHERE n.embedding IS NOT NULL
ORDER BY n.key  // the same nodes in the same order: KNN's seeded sampling then gives the same edges
RETURN gds.graph.project($graph_name, n, null, {sourceNodeProperties: {embedding: n.embedding}, targetNodeProperties: null}) AS g
