// Project every entity of the documents $doc_keys and the RELATED/CONTAINED_IN edges among them as an undirected,
// weighted in-memory graph named $graph_name: project_document_entities.cypher over a whole library (the memory
// a library-wide rag.gds projection takes; bookrag bench scale measures it and drops it). One column: the
// projection's map (null when no entity matched).
MATCH (s:Entity) WHERE s.doc_key IN $doc_keys
OPTIONAL MATCH (s)-[r:RELATED|CONTAINED_IN]->(t:Entity) WHERE t.doc_key IN $doc_keys
RETURN gds.graph.project(
         $graph_name, s, t,
         {sourceNodeLabels: 'Entity', targetNodeLabels: 'Entity', relationshipType: type(r),
          relationshipProperties: {weight: coalesce(r.weight, 1.0)}},
         {undirectedRelationshipTypes: ['*']}
       ) AS g
