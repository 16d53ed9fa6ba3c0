// Document $doc_key's content blocks as the question path reads them whole (retrieval/blocks.py): key, text as
// Text_Reasoning reads it (section path, title, text; the first $max_chars characters) and embedding. One record.
MATCH (n:TreeNode {doc_key: $doc_key}) WHERE n.kind <> 'section'
RETURN collect({
  key: n.key,
  text: left(trim(coalesce(n.section_path, '') + ' ' + coalesce(n.title, '')) + '\n' + coalesce(n.text, ''),
             $max_chars),
  embedding: n.embedding
}) AS rows
