"""Neo4j access: the async client, named Cypher queries, the schema and GDS helpers."""
