// KNN over the projection's embeddings (cosine), written back as (a)-[:SIMILAR {score}]->(b): at most $top_k a
// node, above $cutoff; one thread and a fixed seed, so the same graph gives the same edges.
CALL gds.knn.write($graph_name, {
  nodeProperties: ['embedding'], topK: $top_k, similarityCutoff: $cutoff, randomSeed: $seed, concurrency: 1,
  writeRelationshipType: 'SIMILAR', writeProperty: 'score'
})
YIELD relationshipsWritten, nodesCompared
RETURN relationshipsWritten AS written, nodesCompared AS compared
