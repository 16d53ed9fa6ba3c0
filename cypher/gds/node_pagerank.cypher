// Graph_Reasoning on GDS in one read. For each document of $documents ({doc_key, graph_name}: its catalog projection,
// gds/project_document_entities) holding one of the entities $source_keys: personalized PageRank over the
// projection teleporting to those entities (gds.pageRank.stream with sourceNodes), and each of the document's tree
// nodes among $node_keys scored from the scores of the entities GT-Linked to it ($node_score: sum, mean or max; an
// entity the walk does not reach counts as 0, the stream yielding every node).
// The stream's rows are joined to the tree nodes without a lookup per row: the linked entities and, aligned with
// them, their tree nodes are collected in node order; the stream's rows of those entities, sorted the same way,
// give their scores by position. Should a linked entity be missing from the projection (another document's, or
// one written after the graph build the projection is named after), the rows are joined through the GT-Links.
// One record: rows = [[graph_name, [[node key, score], ...]], ...], one pair a document the walk ran on.
UNWIND $documents AS doc
CALL (doc) {
  MATCH (s:Entity) WHERE s.key IN $source_keys AND s.doc_key = doc.doc_key
  WITH collect(s) AS sources
  WHERE size(sources) > 0
  MATCH (n:TreeNode)<-[:MENTIONED_IN]-(e) WHERE n.key IN $node_keys AND n.doc_key = doc.doc_key
  WITH sources, e, collect(n) AS nodes
  ORDER BY e
  WITH sources, collect(e) AS linked, collect(nodes) AS nodes_of
  CALL gds.pageRank.stream(doc.graph_name, {
    sourceNodes: sources,
    dampingFactor: $damping,
    maxIterations: $max_iterations,
    tolerance: $tolerance,
    relationshipWeightProperty: 'weight',
    concurrency: $concurrency,
    logProgress: false
  })
  YIELD nodeId, score
  WITH linked, nodes_of, gds.util.asNode(nodeId) AS e, score
  WHERE e IN linked
  WITH linked, nodes_of, e, score
  ORDER BY e
  WITH linked, nodes_of, collect(e) AS streamed, collect(score) AS scores
  CALL (linked, nodes_of, streamed, scores) {
    WITH * WHERE streamed = linked
    UNWIND range(0, size(scores) - 1) AS i
    UNWIND nodes_of[i] AS n
    RETURN n, scores[i] AS score
    UNION ALL
    WITH * WHERE streamed <> linked
    UNWIND range(0, size(scores) - 1) AS i
    WITH streamed[i] AS e, scores[i] AS score
    MATCH (e)-[:MENTIONED_IN]->(n:TreeNode) WHERE n.key IN $node_keys
    RETURN n, score
  }
  WITH n, sum(score) AS total, avg(score) AS mean, max(score) AS best
  RETURN n.key AS key, CASE $node_score WHEN 'mean' THEN mean WHEN 'max' THEN best ELSE total END AS score
}
WITH doc, collect([key, score]) AS scores
RETURN collect([doc.graph_name, scores]) AS rows
