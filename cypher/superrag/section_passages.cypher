// The $per passages of each section in $keys (its own blocks and its subsections') most similar to the
// question ($question_vector; reading order breaks ties), as a ranking's keys in the order of $keys. One record.
UNWIND range(0, size($keys) - 1) AS i
CALL (i) {
  MATCH (:TreeNode {key: $keys[i]})-[:HAS_CHILD*0..]->(c:Section)
  MATCH (p:Passage {section_key: c.key})
  WITH DISTINCT p
  ORDER BY coalesce(vector.similarity.cosine(p.embedding, $question_vector), -1.0) DESC, p.ordinal
  LIMIT $per
  RETURN collect(p.key) AS passages
}
RETURN collect(passages) AS rows
