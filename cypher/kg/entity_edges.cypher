// The entity graph of a document as an edge list (RELATED and CONTAINED_IN, each pair once).
MATCH (a:Entity {doc_key: $doc_key})-[:RELATED|CONTAINED_IN]->(b:Entity {doc_key: $doc_key})
RETURN DISTINCT a.key AS source, b.key AS target
