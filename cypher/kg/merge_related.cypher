// RELATED edges with their final (summed) weight and description; one edge per entity pair.
UNWIND $rows AS row
MATCH (a:Entity {key: row.source})
MATCH (b:Entity {key: row.target})
MERGE (a)-[r:RELATED]->(b)
SET r.weight = row.weight, r.description = row.description, r.doc_key = $doc_key
RETURN count(r) AS written
