// The in-memory copy of document $doc_key's knowledge graph for the in-process PageRank (retrieval/entity_graph.py):
// one row per entity with the tree nodes it is GT-Linked to and its outgoing RELATED/CONTAINED_IN edges to
// entities of the same document ([target key, weight]). One record.
MATCH (e:Entity {doc_key: $doc_key})
RETURN collect({
  key: e.key,
  nodes: COLLECT { MATCH (e)-[:MENTIONED_IN]->(n:TreeNode) RETURN n.key },
  edges: COLLECT { MATCH (e)-[r:RELATED|CONTAINED_IN]->(b:Entity) WHERE b.doc_key = $doc_key
                   RETURN [b.key, coalesce(r.weight, 1.0)] }
}) AS rows
