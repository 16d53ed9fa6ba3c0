// Optional library linking: SAME_AS between this document's entities and other documents' entities with the
// same identity (normalised name and type). One edge a pair, whichever document links it: the undirected MERGE
// (it locks both entities before it creates) finds an edge in either direction, so two documents whose graphs
// are built at once by two workers do not link the same pair twice (tests/integration/test_workers.py).
MATCH (e:Entity {doc_key: $doc_key})
MATCH (o:Entity {name_key: e.name_key})
WHERE o.doc_key <> $doc_key
MERGE (e)-[r:SAME_AS]-(o)
RETURN count(r) AS linked
