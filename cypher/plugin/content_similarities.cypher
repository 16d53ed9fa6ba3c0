// retrieval/g2/readout in bookrag-neo4j's plugin: each of document $doc_key's content nodes' similarity (1 + cos) / 2
// to $embedding, on its evolved (g2_embedding) or initial (g2_embedding0) embedding, $property. One record.
CALL bookrag.similarities('ContentNode', $doc_key, $embedding, '', -1, $property) YIELD key, score
RETURN collect([key, score]) AS rows
