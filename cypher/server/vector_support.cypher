// Whether this server can query vector indexes (Neo4j 5.13+).
SHOW PROCEDURES YIELD name
WHERE name = 'db.index.vector.queryNodes'
RETURN count(*) > 0 AS supported
