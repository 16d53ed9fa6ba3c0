// Vanilla dense retrieval (baseline): the $top chunks of document $doc_key nearest to $embedding on the
// chunk_embedding vector index ($k fetched, then filtered by document: 5.26 cannot filter inside the index).
CALL db.index.vector.queryNodes('chunk_embedding', $k, $embedding) YIELD node, score
WITH node, score WHERE node.doc_key = $doc_key
WITH node, score ORDER BY score DESC LIMIT $top
RETURN collect({key: node.key, pages: node.pages, score: score}) AS rows
