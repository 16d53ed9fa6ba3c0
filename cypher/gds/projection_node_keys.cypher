// The entity key behind each GDS node id of projection $graph_name (gds/project_document_entities), read once
// per projection so that a PageRank stream returns ids and scores only (mapping 9,000 ids with gds.util.asNode
// in every question's stream took about 100 ms on PepsiCo's 10-K). One record: rows = [[id, key], ...].
CALL gds.degree.stream($graph_name) YIELD nodeId
RETURN collect([nodeId, gds.util.asNode(nodeId).key]) AS rows
