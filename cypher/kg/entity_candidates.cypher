// Entity-resolution candidates: for each new entity ($rows[].i, $rows[].embedding), the top $top entities of
// document $doc_key by cosine on the entity vector index. Neo4j 5.26 cannot filter inside the vector index,
// so $k (>= $top) nearest are fetched and filtered; structural entities (tables, figures, formulas) are never
// candidates. Index scores are (1 + cosine) / 2; $floor is on that scale.
UNWIND $rows AS row
CALL db.index.vector.queryNodes('entity_embedding', $k, row.embedding) YIELD node, score
WITH row, node, score
WHERE node.doc_key = $doc_key AND NOT node.type IN $skip_types AND score >= $floor
WITH row, node, score ORDER BY score DESC
WITH row, collect(node.key)[..$top] AS keys
RETURN row.i AS i, keys
