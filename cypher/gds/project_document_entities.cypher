// Project every entity of document $doc_key and the RELATED/CONTAINED_IN edges among them as an undirected,
// weighted in-memory graph named $graph_name (isolated entities included).
MATCH (s:Entity {doc_key: $doc_key})
OPTIONAL MATCH (s)-[r:RELATED|CONTAINED_IN]->(t:Entity {doc_key: $doc_key})
WITH gds.graph.project(
       $graph_name, s, t,
       {relationshipProperties: {weight: coalesce(r.weight, 1.0)}},
       {undirectedRelationshipTypes: ['*']}
     ) AS g
RETURN g.graphName AS graph_name, g.nodeCount AS node_count, g.relationshipCount AS relationship_count
