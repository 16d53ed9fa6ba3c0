// Document $doc_key's table rows (header + row) by table, in row order, with their heading (section path > caption
// or lead-in) and embeddings, for scoring a table block by its best row (Text_Reasoning; read once per layout build
// and kept in memory). One record.
MATCH (t:TreeNode {doc_key: $doc_key})-[h:HAS_ROW]->(r:TableChunk)
WITH t, r ORDER BY t.key, h.order
RETURN collect({key: r.key, table: t.key, text: coalesce(r.text, ''), heading: coalesce(r.heading, ''),
                embedding: r.embedding}) AS rows
