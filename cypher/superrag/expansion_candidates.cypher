// Table and diagram expansion: the tables and images on the pages of the hits $keys (passages, table rows or the
// tables they became), or named by a block they cover (REFERS_TO); each with the hit it came from (its first).
// One record.
UNWIND range(0, size($keys) - 1) AS i
CALL (i) {
  CALL (i) {
    MATCH (h:Passage {key: $keys[i]}) RETURN h
    UNION MATCH (h:TableChunk {key: $keys[i]}) RETURN h
    UNION MATCH (h:TreeNode {key: $keys[i]}) RETURN h
  }
  CALL (h) {
    MATCH (h)-[:ON_PAGE]->(:Page)<-[:ON_PAGE]-(x:TreeNode) WHERE x:Table OR x:Image RETURN x
    UNION
    MATCH (h)-[:COVERS]->(:TreeNode)-[:REFERS_TO]->(x) RETURN x
    UNION
    MATCH (x:TreeNode)-[:HAS_ROW]->(h) RETURN x
  }
  RETURN collect(DISTINCT x.key) AS found
}
WITH i, found
UNWIND found AS key
WITH key, min(i) AS hit
ORDER BY hit
RETURN collect({key: key, hit: $keys[hit]}) AS rows
