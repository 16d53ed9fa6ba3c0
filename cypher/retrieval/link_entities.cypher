// Entity linking over document $doc_key's own entities (retrieval/linking.py), exact whatever the library around
// it: for each question entity $entities[i] ({name: its normalised name, vector: its embedding}), the entities
// with that name (score 1.0) or whose embedding's similarity (1 + cos) / 2 to its vector is at least $threshold;
// the best $top of each, ties by key. One record: [i, [[key, score], ...]] for each question entity linked.
MATCH (e:Entity {doc_key: $doc_key})
WITH e.key AS key, split(coalesce(e.name_key, ''), '|')[0] AS name, e.embedding AS embedding
UNWIND range(0, size($entities) - 1) AS i
WITH i, key, CASE
  WHEN $entities[i].name <> '' AND name = $entities[i].name THEN 1.0
  WHEN embedding IS NULL OR size(embedding) <> size($entities[i].vector) THEN 0.0
  ELSE vector.similarity.cosine(embedding, $entities[i].vector) END AS score
WHERE score >= $threshold
WITH i, key, score ORDER BY i, score DESC, key
WITH i, collect([key, score])[..$top] AS links
RETURN collect([i, links]) AS rows
