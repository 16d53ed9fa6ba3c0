// retrieval/nearest_nodes.cypher in bookrag-neo4j's plugin: the content blocks of the documents $doc_keys nearest to
// $embedding by exact cosine ((1 + cos) / 2) over their stored embeddings; the best $top, ties by key.
UNWIND $doc_keys AS doc_key
CALL bookrag.similarities('TreeNode', doc_key, $embedding, 'section', $top) YIELD key, score
RETURN key, score
ORDER BY score DESC, key
LIMIT $top
