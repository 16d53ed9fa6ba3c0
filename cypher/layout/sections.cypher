// Document $doc_key's sections in reading order; `top` when the document is the parent (a MasterSection).
// One record.
MATCH (s:TreeNode {doc_key: $doc_key}) WHERE s:Section
OPTIONAL MATCH (d:Document)-[:HAS_CHILD]->(s)
WITH s, d ORDER BY s.order
RETURN collect({key: s.key, title: s.title, section_path: s.section_path, level: s.level, top: d IS NOT NULL}) AS rows
