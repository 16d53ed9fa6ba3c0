// Copy the nodes $keys of document $source into clone $clone: the same labels (those in $labels) and
// properties, with every string (or string in a list) that is the source's key or starts with its key prefix
// ($source_prefix, then '-') re-prefixed with $prefix: key, doc_key, section_key, table_key...
UNWIND $keys AS k
CALL (k) {
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
WITH n WHERE n.doc_key = $source
CREATE (c:$([label IN labels(n) WHERE label IN $labels]))
SET c = n {.*, key: $prefix + substring(n.key, 16), doc_key: $clone}  // the new key at once: key constraints
FOREACH (p IN [p IN keys(n) WHERE n[p] IS :: STRING AND (n[p] = $source OR n[p] STARTS WITH $source_prefix + '-')] |
  SET c[p] = $prefix + substring(n[p], 16))
FOREACH (p IN [p IN keys(n) WHERE n[p] IS :: LIST<STRING NOT NULL>
                 AND any(v IN n[p] WHERE v = $source OR v STARTS WITH $source_prefix + '-')] |
  SET c[p] = [v IN n[p] | CASE WHEN v = $source OR v STARTS WITH $source_prefix + '-'
                               THEN $prefix + substring(v, 16) ELSE v END])
RETURN count(c) AS created
