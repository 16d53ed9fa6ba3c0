// The entity key behind each GDS node id of projection $graph_name (gds/project_document_entities), read once
// per projection so that a PageRank stream (gds/document_pagerank) returns ids and scores only. One record:
// rows = [[id, key], ...].
CALL gds.degree.stream($graph_name) YIELD nodeId
RETURN collect([nodeId, gds.util.asNode(nodeId).key]) AS rows
