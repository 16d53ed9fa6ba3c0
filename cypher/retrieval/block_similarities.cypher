// The similarity, (1 + cos) / 2, of each content block of document $doc_key to the question vector $vector:
// vector.similarity.cosine over the document's own blocks, exact whatever the library around it (a vector
// index's top k spans the library). Blocks without an embedding of $vector's dimension are left out. One record.
MATCH (n:TreeNode {doc_key: $doc_key})
WHERE n.kind <> 'section' AND n.embedding IS NOT NULL AND size(n.embedding) = size($vector)
RETURN collect([n.key, vector.similarity.cosine(n.embedding, $vector)]) AS rows
