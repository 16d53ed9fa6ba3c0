// The ToC retriever's title scores in bookrag-neo4j's plugin: each section of document $doc_key with a title
// embedding, its similarity (1 + cos) / 2 to $embedding. One record.
CALL bookrag.similarities('TreeNode', $doc_key, $embedding, '', -1, 'title_embedding') YIELD key, score
RETURN collect([key, score]) AS rows
