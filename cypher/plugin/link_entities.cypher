// retrieval/link_entities.cypher in bookrag-neo4j's plugin: for each question entity $entities[i] ({name, vector}),
// the entities of document $doc_key with that name (score 1.0) or a similarity of at least $threshold; the best $top
// of each, ties by key. One record: [i, [[key, score], ...]] for each question entity linked.
CALL bookrag.linkEntities($doc_key, $entities, $threshold, $top) YIELD index, key, score
WITH index, collect([key, score]) AS links
ORDER BY index
RETURN collect([index, links]) AS rows
