// The chunker version of document $doc_key's evaluation chunks (null when it has none).
OPTIONAL MATCH (c:Chunk {doc_key: $doc_key})
RETURN head(collect(DISTINCT c.chunker)) AS chunker, count(c) AS chunks
