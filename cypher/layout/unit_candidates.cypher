// Passages, table rows and tree nodes among $keys as the reasoners read them: heading, text (first $max_chars
// characters) and the cosine of the stored embedding to $question_vector ((1 + cos) / 2 by
// vector.similarity.cosine; null without one). A passage's is the best of its pooled embedding's and its blocks'
// (a passage is as relevant as its most relevant block: the pooled vector dilutes a block among its neighbours).
// `first`: the block a unit starts with (a passage's first block, a row's table, a block itself), whose label
// (retrieval/document_blocks.py) the reasoners read with it. One record.
CALL () {
  MATCH (n:Passage) WHERE n.key IN $keys
  RETURN n, n.ordinal AS ord, '' AS title, n.heading AS path,
         COLLECT { MATCH (n)-[:COVERS]->(b) WHERE b.embedding IS NOT NULL
                   RETURN vector.similarity.cosine(b.embedding, $question_vector) } AS parts,
         head(COLLECT { MATCH (n)-[:COVERS]->(b) RETURN b.key ORDER BY b.order }) AS first
  UNION
  MATCH (n:TableChunk) WHERE n.key IN $keys
  RETURN n, n.ordinal AS ord, '' AS title, n.heading AS path, [] AS parts,
         head(COLLECT { MATCH (t)-[:HAS_ROW]->(n) RETURN t.key }) AS first
  UNION
  MATCH (n:TreeNode) WHERE n.key IN $keys AND n.kind <> 'section'
  RETURN n, n.order AS ord, coalesce(n.caption, n.title) AS title, n.section_path AS path, [] AS parts,
         n.key AS first
}
WITH n, ord, title, path, parts, first,
     CASE WHEN n.embedding IS NULL THEN null ELSE vector.similarity.cosine(n.embedding, $question_vector) END AS own
RETURN collect({
  key: n.key, doc_key: n.doc_key, order: ord, title: title, section_path: path, text: left(n.text, $max_chars),
  page_start: n.page_start, page_end: n.page_end, first: first,
  similarity: reduce(best = own, s IN parts | CASE WHEN best IS NULL OR s > best THEN s ELSE best END)
}) AS rows
