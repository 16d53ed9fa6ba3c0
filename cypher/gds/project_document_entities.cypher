// Project every entity of document $doc_key and the RELATED/CONTAINED_IN edges among them as an undirected,
// weighted in-memory graph named $graph_name (label Entity, the edges' own types; isolated entities included).
// One column: the projection's map (null when the document has no entity), the shape the graphdatascience
// client's gds.graph.project.cypher reads as well (rag.entity_graph).
MATCH (s:Entity {doc_key: $doc_key})
OPTIONAL MATCH (s)-[r:RELATED|CONTAINED_IN]->(t:Entity {doc_key: $doc_key})
RETURN gds.graph.project(
         $graph_name, s, t,
         {sourceNodeLabels: 'Entity', targetNodeLabels: 'Entity', relationshipType: type(r),
          relationshipProperties: {weight: coalesce(r.weight, 1.0)}},
         {undirectedRelationshipTypes: ['*']}
       ) AS g
