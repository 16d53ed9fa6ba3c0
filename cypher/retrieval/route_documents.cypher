// The documents of $doc_keys best placed to answer a question over more documents than it reads
// (retrieval/routing.py): the library's $top content blocks nearest to $vector (the vector index tree_node_embedding)
// and its $top best for $query (the full-text index tree_node_text, Lucene syntax escaped by the caller), each
// document scored by reciprocal-rank fusion over its blocks in both lists (1 / ($k + rank) each), divided by the
// square root of its number of tree nodes (stored when its tree was written): a long document holds more near blocks
// by its length alone, and a plain sum routed most questions to the longest filings. Both indexes span the library
// by design: this step chooses documents; what is read in them is exact per document.
// One record: [doc_key, score] pairs, best first, ties by key.
CALL () {
  CALL db.index.vector.queryNodes('tree_node_embedding', $top, $vector) YIELD node, score
  WITH node, score WHERE node.kind <> 'section'
  WITH collect(node.doc_key) AS hits
  UNWIND range(0, size(hits) - 1) AS rank
  RETURN hits[rank] AS doc_key, 1.0 / ($k + rank + 1) AS share
  UNION ALL
  CALL db.index.fulltext.queryNodes('tree_node_text', $query, {limit: $top}) YIELD node, score
  WITH node, score WHERE node.kind <> 'section'
  WITH collect(node.doc_key) AS hits
  UNWIND range(0, size(hits) - 1) AS rank
  RETURN hits[rank] AS doc_key, 1.0 / ($k + rank + 1) AS share
}
WITH doc_key, sum(share) AS fused WHERE doc_key IN $doc_keys
OPTIONAL MATCH (d:Document {key: doc_key})
WITH doc_key, fused / sqrt(toFloat(CASE WHEN d.tree_nodes > 0 THEN d.tree_nodes
                                        ELSE COUNT { (n:TreeNode {doc_key: doc_key}) } + 1 END)) AS score
WITH doc_key, score ORDER BY score DESC, doc_key
RETURN collect([doc_key, score]) AS rows
