// Document $doc_key's content nodes in reading order: its passages, each followed by the tables and images it
// covers, with their captions and the text of the blocks just before and after them. One record.
MATCH (p:Passage {doc_key: $doc_key})
CALL (p) {
  RETURN {key: p.key, kind: 'passage', text: coalesce(p.text, ''), caption: '', section_path: coalesce(p.heading, ''),
          before: '', after: '', page: coalesce(p.page_start, 0), embedding: p.embedding} AS node, 0 AS sub
  UNION
  MATCH (p)-[c:COVERS]->(b:TreeNode) WHERE b.kind IN ['table', 'image']
  OPTIONAL MATCH (p)-[c1:COVERS]->(prev:TreeNode) WHERE c1.order = c.order - 1
  OPTIONAL MATCH (p)-[c2:COVERS]->(next:TreeNode) WHERE c2.order = c.order + 1
  RETURN {key: b.key, kind: b.kind, text: coalesce(b.text, ''), caption: coalesce(b.caption, ''),
          section_path: coalesce(b.section_path, ''), before: coalesce(prev.text, ''), after: coalesce(next.text, ''),
          page: coalesce(b.page_start, 0), embedding: b.embedding} AS node, 1 + c.order AS sub
}
WITH node ORDER BY p.ordinal, sub
RETURN collect(node) AS rows
