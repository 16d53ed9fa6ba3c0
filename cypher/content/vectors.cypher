// Document $doc_key's content nodes in reading order with their evolved (g2_embedding) and initial
// (g2_embedding0) embeddings, for the readout's exact per-document cosine. One record.
MATCH (n:ContentNode {doc_key: $doc_key})
WITH n ORDER BY n.g2_order
RETURN collect({key: n.key, embedding: n.g2_embedding, initial: n.g2_embedding0}) AS rows
