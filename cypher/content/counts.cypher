// What document $doc_key's content graph holds, counted in the graph (for stats and tests).
RETURN
  COUNT { MATCH (n:ContentNode {doc_key: $doc_key}) RETURN n } AS nodes,
  COUNT { MATCH (:ContentNode {doc_key: $doc_key})-[r:G2_LINK {kind: 'window'}]->() RETURN r } AS window_links,
  COUNT { MATCH (:ContentNode {doc_key: $doc_key})-[r:G2_LINK {kind: 'knn'}]->() RETURN r } AS knn_links,
  COUNT { MATCH (:ContentNode {doc_key: $doc_key})-[r:G2_LINK {kind: 'llm'}]->() RETURN r } AS llm_links
