// Copy the outgoing relationships (types in $types) of the nodes $keys of document $source (its own nodes and
// its Document) into clone $clone: between the clones of both ends, or from the clone to the same node where
// the other end belongs to no document (a Keyword); those to another document's nodes are not copied. The
// relationship's properties are copied, its strings re-prefixed as clone_nodes does.
UNWIND $keys AS k
CALL (k) {
  MATCH (n:Document {key: k}) RETURN n
  UNION
  MATCH (n:TreeNode {key: k}) RETURN n
  UNION
  MATCH (n:Page {key: k}) RETURN n
  UNION
  MATCH (n:Entity {key: k}) RETURN n
  UNION
  MATCH (n:Passage {key: k}) RETURN n
  UNION
  MATCH (n:TableChunk {key: k}) RETURN n
  UNION
  MATCH (n:TableOfContents {key: k}) RETURN n
}
WITH n WHERE n.doc_key = $source OR (n:Document AND n.key = $source)
CALL (n) {
  WITH n WHERE n:Document MATCH (c:Document {key: $clone}) RETURN c
  UNION
  WITH n WHERE n:TreeNode MATCH (c:TreeNode {key: $prefix + substring(n.key, 16)}) RETURN c
  UNION
  WITH n WHERE n:Page MATCH (c:Page {key: $prefix + substring(n.key, 16)}) RETURN c
  UNION
  WITH n WHERE n:Entity MATCH (c:Entity {key: $prefix + substring(n.key, 16)}) RETURN c
  UNION
  WITH n WHERE n:Passage MATCH (c:Passage {key: $prefix + substring(n.key, 16)}) RETURN c
  UNION
  WITH n WHERE n:TableChunk MATCH (c:TableChunk {key: $prefix + substring(n.key, 16)}) RETURN c
  UNION
  WITH n WHERE n:TableOfContents MATCH (c:TableOfContents {key: $prefix + substring(n.key, 16)}) RETURN c
}
MATCH (n)-[r]->(m) WHERE type(r) IN $types
CALL (m) {
  WITH m WHERE m.doc_key IS NULL AND NOT m:Document RETURN m AS t
  UNION
  WITH m WHERE m:Document AND m.key = $source MATCH (t:Document {key: $clone}) RETURN t
  UNION
  WITH m WHERE m.doc_key = $source AND m:TreeNode MATCH (t:TreeNode {key: $prefix + substring(m.key, 16)}) RETURN t
  UNION
  WITH m WHERE m.doc_key = $source AND m:Page MATCH (t:Page {key: $prefix + substring(m.key, 16)}) RETURN t
  UNION
  WITH m WHERE m.doc_key = $source AND m:Entity MATCH (t:Entity {key: $prefix + substring(m.key, 16)}) RETURN t
  UNION
  WITH m WHERE m.doc_key = $source AND m:Passage MATCH (t:Passage {key: $prefix + substring(m.key, 16)}) RETURN t
  UNION
  WITH m WHERE m.doc_key = $source AND m:TableChunk
  MATCH (t:TableChunk {key: $prefix + substring(m.key, 16)}) RETURN t
  UNION
  WITH m WHERE m.doc_key = $source AND m:TableOfContents
  MATCH (t:TableOfContents {key: $prefix + substring(m.key, 16)}) RETURN t
}
CREATE (c)-[x:$(type(r))]->(t)
SET x = properties(r)
FOREACH (p IN [p IN keys(r) WHERE r[p] IS :: STRING AND (r[p] = $source OR r[p] STARTS WITH $source_prefix + '-')] |
  SET x[p] = $prefix + substring(r[p], 16))
RETURN count(x) AS created
