// What document $doc_key holds, to compare a clone with its source: its nodes by label (the Document's too), its
// nodes' outgoing relationships by type and by where they lead (own: the document's nodes; shared: a node of no
// document, a Keyword; other: another document's node), incoming ones from other documents, and how many of
// its nodes' keys do not start with its key prefix ($prefix).
CALL () {
  MATCH (n:Document {key: $doc_key}) RETURN n
  UNION
  MATCH (n:TreeNode {doc_key: $doc_key}) RETURN n
  UNION
  MATCH (n:Page {doc_key: $doc_key}) RETURN n
  UNION
  MATCH (n:Entity {doc_key: $doc_key}) RETURN n
  UNION
  MATCH (n:Passage {doc_key: $doc_key}) RETURN n
  UNION
  MATCH (n:TableChunk {doc_key: $doc_key}) RETURN n
  UNION
  MATCH (n:TableOfContents {doc_key: $doc_key}) RETURN n
}
WITH collect(n) AS nodes
CALL (nodes) {
  UNWIND nodes AS n
  UNWIND labels(n) AS label
  WITH label, count(*) AS count ORDER BY label
  RETURN collect({name: label, count: count}) AS labels
}
CALL (nodes) {
  UNWIND nodes AS n
  MATCH (n)-[r]->(m)
  WITH type(r) AS type, CASE WHEN m.doc_key = $doc_key OR (m:Document AND m.key = $doc_key) THEN 'own'
                              WHEN m.doc_key IS NULL AND NOT m:Document THEN 'shared' ELSE 'other' END AS reach
  WITH type, reach, count(*) AS count ORDER BY type, reach
  RETURN collect({name: type + ' ' + reach, count: count}) AS outgoing
}
CALL (nodes) {
  UNWIND nodes AS n
  MATCH (n)<-[r]-(m) WHERE m.doc_key <> $doc_key OR (m:Document AND m.key <> $doc_key)
  RETURN count(r) AS incoming_other
}
RETURN labels, outgoing, incoming_other,
       size([n IN nodes WHERE NOT (n.key = $doc_key OR n.key STARTS WITH $prefix + '-')]) AS foreign_keys
