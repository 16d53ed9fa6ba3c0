// BI: one row a section, in reading order, with its level, page span and the blocks under it (all depths).
// $doc: a document name, or null (or '') for the whole library.
// Columns: document, section, section_path, level, page_start, page_end, blocks, text_blocks, tables, figures, equations
MATCH (d:Document) WHERE coalesce($doc, '') = '' OR d.name = $doc
MATCH (s:Section {doc_key: d.key})
OPTIONAL MATCH (s)-[:HAS_CHILD*1..]->(b:TreeNode) WHERE NOT b:Section
WITH d, s, collect(b.kind) AS kinds
RETURN d.name AS document, s.title AS section, s.section_path AS section_path, s.level AS level,
       s.page_start AS page_start, s.page_end AS page_end, size(kinds) AS blocks,
       size([k IN kinds WHERE k = 'text']) AS text_blocks, size([k IN kinds WHERE k = 'table']) AS tables,
       size([k IN kinds WHERE k = 'image']) AS figures, size([k IN kinds WHERE k = 'equation']) AS equations
ORDER BY document, s.order
