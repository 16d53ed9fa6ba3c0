// Text2Cypher template, "what does Table 3 show?": the tables or images (by $labels) of the documents $doc_keys
// whose caption matches $pattern, or that follow a text block (their caption, set apart) matching it.
UNWIND $doc_keys AS doc
CALL (doc) {
  MATCH (x:TreeNode {doc_key: doc})
  WHERE any(l IN labels(x) WHERE l IN $labels) AND x.caption =~ $pattern
  RETURN x
  UNION
  MATCH (c:Text {doc_key: doc})-[:NEXT]->(x:TreeNode)
  WHERE c.text =~ $pattern AND any(l IN labels(x) WHERE l IN $labels)
  RETURN x
}
RETURN x.key AS key, x.order AS ord
ORDER BY ord
LIMIT 5
