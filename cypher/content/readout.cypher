// G²-Reader's structured subgraph readout in one document (paper §3.2.3): the probe's hits with their ranks and
// their linked neighbours. $semantic: content-node keys best first (exact cosine, ranked by the caller);
// lexical hits from the content_node_text full-text index ($query: a Lucene query holding the document filter,
// $lexical hits); each hit's neighbours over G2_LINK edges of $kinds, best link first (ties in reading order),
// which the caller orders by their cosine to the question and cuts. One record.
CALL () {
  UNWIND range(0, size($semantic) - 1) AS i
  RETURN $semantic[i] AS key, 'semantic' AS by, i + 1 AS rank
  UNION ALL
  CALL db.index.fulltext.queryNodes('content_node_text', $query, {limit: $lexical}) YIELD node
  WITH collect(node.key) AS keys
  UNWIND range(0, size(keys) - 1) AS i
  RETURN keys[i] AS key, 'lexical' AS by, i + 1 AS rank
}
WITH key, collect({by: by, rank: rank}) AS ranks
MATCH (n:ContentNode {key: key})
CALL (n) {
  OPTIONAL MATCH (n)-[r:G2_LINK]-(m:ContentNode) WHERE r.kind IN $kinds
  WITH m, max(r.score) AS score
  ORDER BY score DESC, m.g2_order
  RETURN collect(m.key) AS neighbours
}
RETURN collect({key: key, ranks: ranks, neighbours: neighbours}) AS rows
