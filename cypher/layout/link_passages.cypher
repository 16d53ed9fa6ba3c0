// Reading order between passages: $rows of {a, b} keys, (a)-[:NEXT]->(b).
UNWIND $rows AS row
MATCH (a:Passage {key: row.a})
MATCH (b:Passage {key: row.b})
MERGE (a)-[:NEXT]->(b)
RETURN count(*) AS written
