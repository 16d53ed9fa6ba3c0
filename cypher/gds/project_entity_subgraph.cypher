// Project the entities with keys in $entity_keys and the RELATED/CONTAINED_IN edges among them as an
// undirected, weighted in-memory graph named $graph_name. OPTIONAL MATCH keeps isolated entities (they can
// still be PPR seeds). One column: the projection's map (null when no key matched).
MATCH (s:Entity) WHERE s.key IN $entity_keys
OPTIONAL MATCH (s)-[r:RELATED|CONTAINED_IN]->(t:Entity) WHERE t.key IN $entity_keys
RETURN gds.graph.project(
         $graph_name, s, t,
         {relationshipProperties: {weight: coalesce(r.weight, 1.0)}},
         {undirectedRelationshipTypes: ['*']}
       ) AS g
