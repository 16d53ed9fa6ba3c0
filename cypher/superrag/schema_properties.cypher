// The property keys of each node label the text2Cypher prompt describes, read from the first $sample nodes of
// each label (one code path writes every node of a label), so that its cost does not grow with the library
// (db.schema.nodeTypeProperties() reads every node).
UNWIND $labels AS label
CALL (label) {
  MATCH (n:$(label))
  WITH n LIMIT $sample
  UNWIND keys(n) AS property
  WITH DISTINCT property WHERE NOT property IN $hidden
  ORDER BY property
  RETURN collect(property) AS properties
}
WITH label, properties WHERE size(properties) > 0
RETURN label, properties
