// The content blocks among $keys (sections left out) as the reasoners read them: title, section path, text
// (first $max_chars characters), pages and the similarity of the stored block embedding to $question_vector
// (vector.similarity.cosine, (1 + cos) / 2; null without an embedding), computed here so that embeddings
// never cross the wire. Details for citing come later, for the kept nodes only (retrieval/nodes). One record.
MATCH (n:TreeNode) WHERE n.key IN $keys AND n.kind <> 'section'
RETURN collect({
  key: n.key, doc_key: n.doc_key, order: n.order, title: n.title, section_path: n.section_path,
  page_start: n.page_start, page_end: n.page_end,
  text: left(n.text, $max_chars),
  similarity: CASE WHEN n.embedding IS NULL THEN null
                   ELSE vector.similarity.cosine(n.embedding, $question_vector) END
}) AS rows
