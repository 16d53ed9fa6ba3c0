// The documents with keys in $doc_keys, or (null) every document, by file name, in one record (no card vector).
MATCH (d:Document)
WHERE $doc_keys IS NULL OR d.key IN $doc_keys
WITH d ORDER BY d.name
RETURN collect(d {.*, card_embedding: null}) AS rows
