// Document $doc_key's content blocks in reading order, each with its parent section (null: under the document)
// and its embedding (null when it has none).
// One record.
MATCH (n:TreeNode {doc_key: $doc_key}) WHERE n.kind <> 'section'
OPTIONAL MATCH (s:Section)-[:HAS_CHILD]->(n)
WITH n, s ORDER BY n.order
RETURN collect({key: n.key, kind: n.kind, text: coalesce(n.text, ''), page_start: coalesce(n.page_start, 0),
                page_end: coalesce(n.page_end, n.page_start, 0), section: s.key,
                section_path: coalesce(n.section_path, ''), caption: coalesce(n.caption, ''),
                table_markdown: coalesce(n.table_markdown, ''), embedding: n.embedding}) AS rows
