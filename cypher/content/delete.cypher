// Remove document $doc_key's content graph: its G2_LINK edges, the keyword links this stage added, the
// :ContentNode label and the g2_ properties. Passages and tree nodes stay (then delete_orphan_keywords).
MATCH (n:ContentNode {doc_key: $doc_key})
OPTIONAL MATCH (n)-[l:G2_LINK]-()
DELETE l
WITH DISTINCT n
OPTIONAL MATCH (n)-[r:HAS_KEYWORD {layer: 'content-graph'}]->()
DELETE r
WITH DISTINCT n
REMOVE n:ContentNode, n.g2_order, n.g2_summary, n.g2_keywords, n.g2_text, n.g2_embedding, n.g2_embedding0
RETURN count(n) AS deleted
