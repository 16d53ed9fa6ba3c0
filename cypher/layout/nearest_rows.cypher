// Per-document vector search over table rows: each document's $top rows most similar to $embedding (exact
// cosine over the document's rows). One record.
UNWIND $doc_keys AS doc
CALL (doc) {
  MATCH (n:TableChunk {doc_key: doc})
  WITH n, vector.similarity.cosine(n.embedding, $embedding) AS score
  ORDER BY score DESC LIMIT $top
  RETURN n.key AS key, score
}
RETURN collect({key: key, score: score}) AS rows
