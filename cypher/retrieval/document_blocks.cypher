// Document $doc_key's content blocks as the question path reads them whole (retrieval/document_blocks.py): key, reading
// order, kind, section path, title, pages and text (the first $max_chars characters); their similarities to a
// question are computed in Neo4j (retrieval/block_similarities). The text
// Text_Reasoning reads (with each block's label, the short line above it) is put together in Python. One record.
MATCH (n:TreeNode {doc_key: $doc_key}) WHERE n.kind <> 'section'
RETURN collect({
  key: n.key, doc_key: n.doc_key, order: n.order, kind: n.kind, section_path: coalesce(n.section_path, ''),
  title: coalesce(n.title, ''), page_start: n.page_start, page_end: n.page_end,
  text: left(coalesce(n.text, ''), $max_chars)
}) AS rows
