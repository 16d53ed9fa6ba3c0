// The library as the web app lists it: each document's node and its section count, by file name.
// Columns: document, sections
MATCH (d:Document)
RETURN d {.*, card_embedding: null} AS document, COUNT { (s:Section {doc_key: d.key}) } AS sections
ORDER BY d.name, d.indexed_at DESC
