// Document $doc_key's passages with their heading path and text, in reading order, for BM25 within the document (read once per
// layout build and kept in memory). One record.
MATCH (n:Passage {doc_key: $doc_key})
WITH n ORDER BY n.ordinal
RETURN collect({key: n.key, heading: n.heading, text: n.text}) AS rows
