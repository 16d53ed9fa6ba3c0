// Passages, table rows and tree nodes among $keys as the reasoners read them: heading, text (first $max_chars
// characters) and the cosine of the stored embedding to $question_vector ((1 + cos) / 2 by
// vector.similarity.cosine; null without one). One record.
CALL () {
  MATCH (n:Passage) WHERE n.key IN $keys
  RETURN n, n.ordinal AS ord, '' AS title, n.heading AS path
  UNION
  MATCH (n:TableChunk) WHERE n.key IN $keys
  RETURN n, n.ordinal AS ord, '' AS title, n.heading AS path
  UNION
  MATCH (n:TreeNode) WHERE n.key IN $keys AND n.kind <> 'section'
  RETURN n, n.order AS ord, coalesce(n.caption, n.title) AS title, n.section_path AS path
}
RETURN collect({
  key: n.key, doc_key: n.doc_key, order: ord, title: title, section_path: path, text: left(n.text, $max_chars),
  similarity: CASE WHEN n.embedding IS NULL THEN null ELSE vector.similarity.cosine(n.embedding, $question_vector) END
}) AS rows
