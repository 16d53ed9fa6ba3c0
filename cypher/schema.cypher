// The BookIndex schema. Idempotent: every statement is IF NOT EXISTS, so applying it twice changes nothing.
// Applied by `bookrag neo4j init` (bookrag_neo4j/graph/schema.py), with $dimensions = the embedder's dimension.
// Layers built on first use bring their own schema (cypher/layout/schema.cypher: the layout layer).

// Uniqueness of the content-hash keys that every write MERGEs on (each also backs a range index on `key`).
CREATE CONSTRAINT document_key IF NOT EXISTS FOR (n:Document) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT tree_node_key IF NOT EXISTS FOR (n:TreeNode) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT page_key IF NOT EXISTS FOR (n:Page) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT entity_key IF NOT EXISTS FOR (n:Entity) REQUIRE n.key IS UNIQUE;
// One indexing lease a document key (bookrag_neo4j.index.leases): concurrent claims MERGE on it.
CREATE CONSTRAINT index_lease_key IF NOT EXISTS FOR (n:IndexLease) REQUIRE n.key IS UNIQUE;

// Scoping every lookup to one document of a library.
CREATE INDEX tree_node_doc IF NOT EXISTS FOR (n:TreeNode) ON (n.doc_key);
CREATE INDEX page_doc IF NOT EXISTS FOR (n:Page) ON (n.doc_key);
CREATE INDEX entity_doc IF NOT EXISTS FOR (n:Entity) ON (n.doc_key);
CREATE INDEX entity_name_key IF NOT EXISTS FOR (n:Entity) ON (n.name_key);

// Vector indexes (cosine) on entity embeddings (entity resolution, question linking) and tree-node embeddings.
CREATE VECTOR INDEX entity_embedding IF NOT EXISTS FOR (n:Entity) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX tree_node_embedding IF NOT EXISTS FOR (n:TreeNode) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
// Each document's card (title, issuer, kind, period: bookrag_neo4j/library/cards.py), found by its words or meaning.
CREATE VECTOR INDEX document_card_embedding IF NOT EXISTS FOR (n:Document) ON n.card_embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};

// Full-text indexes on tree-node content and entity names (hybrid search, BM25-style lookups).
CREATE FULLTEXT INDEX tree_node_text IF NOT EXISTS FOR (n:TreeNode) ON EACH [n.title, n.text];
CREATE FULLTEXT INDEX entity_name IF NOT EXISTS FOR (n:Entity) ON EACH [n.name];
CREATE FULLTEXT INDEX document_card IF NOT EXISTS FOR (n:Document) ON EACH [n.name, n.card_text];
