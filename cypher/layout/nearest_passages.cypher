// Per-document vector search over passages: each document's $top passages most similar to $embedding, by exact
// cosine over that document's passages alone (no library-wide top-k, so a document's hits never depend on the
// rest of the library). One record.
UNWIND $doc_keys AS doc
CALL (doc) {
  MATCH (n:Passage {doc_key: doc})
  WITH n, vector.similarity.cosine(n.embedding, $embedding) AS score
  ORDER BY score DESC LIMIT $top
  RETURN n.key AS key, score
}
RETURN collect({key: key, score: score}) AS rows
