// Passages and table rows among $keys to show and cite, with their document's name, pages and the passage that
// follows (for the cross-page merge). One record.
CALL () {
  MATCH (n:Passage) WHERE n.key IN $keys
  OPTIONAL MATCH (n)-[:NEXT]->(next:Passage)
  RETURN n, 'passage' AS kind, n.heading AS path, n.ordinal AS ord, next
  UNION
  MATCH (n:TableChunk) WHERE n.key IN $keys
  RETURN n, 'table_row' AS kind, n.heading AS path, n.ordinal AS ord, null AS next
}
MATCH (d:Document {key: n.doc_key})
RETURN collect({
  key: n.key, doc_key: n.doc_key, document: d.name, kind: kind, title: '', text: n.text,
  page_start: n.page_start, page_end: n.page_end, section_path: path, order: ord, section: n.section_key,
  next: CASE WHEN next IS NULL THEN null ELSE {key: next.key, text: next.text, page_start: next.page_start,
                                                 page_end: next.page_end, section: next.section_key} END
}) AS rows
