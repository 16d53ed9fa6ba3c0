// retrieval/block_similarities.cypher in bookrag-neo4j's plugin, as one row: the similarity (1 + cos) / 2 of each
// content block of document $doc_key to $vector, as little-endian float64 bytes in the order of the blocks' keys,
// which come only when that order is not $order (the digest the caller got with them last time).
CALL bookrag.similarityArray('TreeNode', $doc_key, $vector, 'section', $order) YIELD order, keys, scores
RETURN [order, keys, scores] AS rows
