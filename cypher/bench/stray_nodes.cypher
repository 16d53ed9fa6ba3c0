// The label sets of document $doc_key's nodes outside the families a clone copies (a scan of every node: once a
// source document); none is expected, and a clone of a document with some would be incomplete.
MATCH (n) WHERE n.doc_key = $doc_key
  AND NOT (n:TreeNode OR n:Page OR n:Entity OR n:Passage OR n:TableChunk OR n:TableOfContents)
RETURN collect(DISTINCT labels(n)) AS rows
