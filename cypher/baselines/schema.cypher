// The chunk layer of the chunk baselines (bm25, dense): applied by bookrag_neo4j.retrieval.chunks the first time
// a document's chunks are written, with $dimensions = the embedder's dimension. Idempotent (IF NOT EXISTS).
CREATE CONSTRAINT chunk_key IF NOT EXISTS FOR (n:Chunk) REQUIRE n.key IS UNIQUE;
CREATE INDEX chunk_doc IF NOT EXISTS FOR (n:Chunk) ON (n.doc_key);
CREATE VECTOR INDEX chunk_embedding IF NOT EXISTS FOR (n:Chunk) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
