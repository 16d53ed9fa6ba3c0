// layout/table_rows without the embeddings, when bookrag-neo4j's plugin scores the rows in the server. One record.
MATCH (t:TreeNode {doc_key: $doc_key})-[h:HAS_ROW]->(r:TableChunk)
WITH t, r ORDER BY t.key, h.order
RETURN collect({key: r.key, table: t.key, text: coalesce(r.text, ''), heading: coalesce(r.heading, ''),
                embedding: null}) AS rows
