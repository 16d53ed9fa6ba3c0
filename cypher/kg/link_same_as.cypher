// Optional library linking: SAME_AS between this document's entities and other documents' entities with the
// same identity (normalised name and type). One edge per pair, from the newer document's entity.
MATCH (e:Entity {doc_key: $doc_key})
MATCH (o:Entity {name_key: e.name_key})
WHERE o.doc_key <> $doc_key
MERGE (e)-[r:SAME_AS]->(o)
RETURN count(r) AS linked
