// Delete document $doc_key's evaluation chunks (before writing them again with another chunker).
MATCH (c:Chunk {doc_key: $doc_key})
DETACH DELETE c
RETURN count(*) AS deleted
