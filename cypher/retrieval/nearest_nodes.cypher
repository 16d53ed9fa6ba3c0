// The content blocks of the scope nearest to a question embedding ($k fetched, filtered by document).
CALL db.index.vector.queryNodes('tree_node_embedding', $k, $embedding) YIELD node, score
WITH node, score WHERE node.doc_key IN $doc_keys
RETURN node.key AS key, score
ORDER BY score DESC
LIMIT $top
