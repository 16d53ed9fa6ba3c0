// Document $doc_key's evaluation chunks (key, text, pages) in order, for the BM25 baseline. One record.
MATCH (c:Chunk {doc_key: $doc_key})
WITH c ORDER BY c.ordinal
RETURN collect({key: c.key, text: c.text, pages: c.pages}) AS rows
