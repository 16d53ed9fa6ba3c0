// layout/vectors.nearest_units in bookrag-neo4j's plugin: document $doc_key's $top nodes of $label (Passage or
// TableChunk: the layout layer's units) nearest to $embedding, the similarity (1 + cos) / 2, ties by key. One record.
CALL bookrag.similarities($label, $doc_key, $embedding, '', $top) YIELD key, score
RETURN collect([key, score]) AS rows
