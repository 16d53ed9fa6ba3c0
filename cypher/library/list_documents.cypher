// The documents with keys in $doc_keys, or (null) every document, by file name.
MATCH (d:Document)
WHERE $doc_keys IS NULL OR d.key IN $doc_keys
RETURN d {.*} AS document
ORDER BY d.name
