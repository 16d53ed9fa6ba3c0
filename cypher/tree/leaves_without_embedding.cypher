// Content blocks of a document that still need an embedding (the embed stage resumes from here).
MATCH (n:TreeNode {doc_key: $doc_key})
WHERE n.kind <> 'section' AND n.embedding IS NULL AND n.text <> ''
RETURN n.key AS key, n.text AS text
ORDER BY n.order
LIMIT $limit
