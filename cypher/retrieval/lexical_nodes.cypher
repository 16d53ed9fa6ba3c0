// Lexical search: the content blocks of the scope that the full-text index tree_node_text (Lucene, on title
// and text) ranks best for $query (Lucene syntax, escaped by the caller), the best $top.
CALL db.index.fulltext.queryNodes('tree_node_text', $query) YIELD node, score
WITH node, score WHERE node.doc_key IN $doc_keys AND node.kind <> 'section'
RETURN node.key AS key, score
ORDER BY score DESC
LIMIT $top
