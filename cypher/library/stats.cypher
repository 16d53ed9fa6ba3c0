// Counts of one document: pages, blocks by type, sections by level.
MATCH (d:Document {key: $doc_key})
CALL (d) {
  MATCH (n:TreeNode {doc_key: d.key})
  RETURN collect(CASE WHEN n.kind = 'section' THEN 'L' + toString(n.level) END) AS levels,
         collect(CASE WHEN n.kind <> 'section' THEN n.kind END) AS kinds
}
CALL (d) {
  MATCH (d)-[:HAS_PAGE]->(p:Page)
  RETURN count(p) AS pages
}
RETURN d.key AS key, d.name AS name, d.title AS title, pages, levels, kinds
