// The documents a question is asked of: those with keys in $doc_keys, or (null) every complete document.
MATCH (d:Document)
WHERE d.status = 'complete' AND ($doc_keys IS NULL OR d.key IN $doc_keys)
RETURN d.key AS key, d.name AS name, d.title AS title, d.pages AS pages
ORDER BY d.name
