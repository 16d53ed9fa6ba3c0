// The entities of the documents $doc_keys and the RELATED/CONTAINED_IN edges among them (what
// project_library_entities.cypher projects), counted.
MATCH (s:Entity) WHERE s.doc_key IN $doc_keys
OPTIONAL MATCH (s)-[r:RELATED|CONTAINED_IN]->(t:Entity) WHERE t.doc_key IN $doc_keys
RETURN count(DISTINCT s) AS entities, count(r) AS edges
