// RELATED and CONTAINED_IN edges among the entities $entity_keys (for the in-process PageRank of small
// subgraphs), each with its weight.
MATCH (a:Entity) WHERE a.key IN $entity_keys
MATCH (a)-[r:RELATED|CONTAINED_IN]->(b:Entity)
WHERE b.key IN $entity_keys
RETURN a.key AS source, b.key AS target, coalesce(r.weight, 1.0) AS weight
