// Extract: link question entities to graph entities of the scope. For each $rows[] (i, name, embedding):
// entities with the same normalised name (any type), and the nearest by the entity vector index with
// score >= $threshold (index scores are (1 + cosine) / 2; $k nearest are fetched, then filtered by document,
// since 5.26 cannot filter inside the index). The best $per_entity of each.
UNWIND $rows AS row
CALL (row) {
  MATCH (e:Entity) WHERE e.name_key STARTS WITH row.name + '|' AND e.doc_key IN $doc_keys
  RETURN e AS entity, 1.0 AS score
  UNION
  CALL db.index.vector.queryNodes('entity_embedding', $k, row.embedding) YIELD node, score
  WITH node, score WHERE node.doc_key IN $doc_keys AND score >= $threshold
  RETURN node AS entity, score
}
WITH row, entity, max(score) AS score ORDER BY score DESC
WITH row, collect({key: entity.key, name: entity.name, type: entity.type, doc_key: entity.doc_key, score: score})[..$per_entity] AS linked
RETURN row.i AS i, linked
