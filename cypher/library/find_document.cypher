// A document by key, key prefix, or file name (most recently indexed first).
MATCH (d:Document)
WHERE d.key = $doc OR d.name = $doc OR (size($doc) >= 6 AND d.key STARTS WITH $doc)
RETURN d {.*, card_embedding: null} AS document
ORDER BY d.indexed_at DESC
