// The store size of database $database from Neo4j Enterprise's metrics over JMX (server.metrics.jmx.enabled:
// <prefix>.database.<db>.store.size.total); no row on Community, which registers no Neo4j bean.
CALL dbms.queryJmx('neo4j.metrics:*') YIELD name, attributes
WHERE name ENDS WITH '.database.' + $database + '.store.size.total'
RETURN attributes.Value.value AS bytes
