// Document $doc_key's table rows with their embeddings, for exact per-document vector search (read once per
// layout build and kept in memory). One record.
MATCH (n:TableChunk {doc_key: $doc_key}) WHERE n.embedding IS NOT NULL
RETURN collect({key: n.key, embedding: n.embedding}) AS rows
