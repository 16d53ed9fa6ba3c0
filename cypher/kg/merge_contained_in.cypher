// CONTAINED_IN edges: a table's row and column headers to the table's entity.
UNWIND $rows AS row
MATCH (a:Entity {key: row.source})
MATCH (b:Entity {key: row.target})
MERGE (a)-[r:CONTAINED_IN]->(b)
SET r.weight = row.weight, r.description = row.description, r.doc_key = $doc_key
RETURN count(r) AS written
