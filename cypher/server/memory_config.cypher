// The configured page cache and heap of the server that answers, as Neo4j prints them ("512.00MiB").
CALL dbms.listConfig('server.memory.') YIELD name, value
WHERE name IN ['server.memory.pagecache.size', 'server.memory.heap.max_size']
RETURN name, value
