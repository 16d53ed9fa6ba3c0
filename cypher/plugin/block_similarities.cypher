// retrieval/block_similarities.cypher in bookrag-neo4j's plugin: the similarity (1 + cos) / 2 of each content block of
// document $doc_key to $vector, scored by the function vector.similarity.cosine calls, without building a Cypher list
// of each stored vector. One record.
CALL bookrag.similarities('TreeNode', $doc_key, $vector, 'section', -1) YIELD key, score
RETURN collect([key, score]) AS rows
