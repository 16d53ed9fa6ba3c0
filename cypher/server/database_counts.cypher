// Every node and relationship of the database (from the count store: no scan).
RETURN COUNT { MATCH (n) } AS nodes, COUNT { MATCH ()-[r]->() } AS relationships
