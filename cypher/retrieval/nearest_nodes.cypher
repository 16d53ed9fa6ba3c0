// The content blocks of the documents $doc_keys nearest to a question embedding: exact cosine over their stored
// block embeddings ((1 + cos) / 2), so that a document's answer does not depend on what else the library holds
// (a vector index's top k spans the whole library). The best $top.
MATCH (node:TreeNode) WHERE node.doc_key IN $doc_keys AND node.kind <> 'section' AND node.embedding IS NOT NULL
WITH node, vector.similarity.cosine(node.embedding, $embedding) AS score
RETURN node.key AS key, score
ORDER BY score DESC, key
LIMIT $top
