// The layout layer's schema (bookrag_neo4j.layout.build applies it before a build), with $dimensions = the
// embedder's dimension. Idempotent (IF NOT EXISTS).
CREATE CONSTRAINT passage_key IF NOT EXISTS FOR (n:Passage) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT table_chunk_key IF NOT EXISTS FOR (n:TableChunk) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT toc_key IF NOT EXISTS FOR (n:TableOfContents) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT keyword_key IF NOT EXISTS FOR (n:Keyword) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT stem_key IF NOT EXISTS FOR (n:Stem) REQUIRE n.key IS UNIQUE;
CREATE INDEX passage_doc IF NOT EXISTS FOR (n:Passage) ON (n.doc_key);
CREATE INDEX table_chunk_doc IF NOT EXISTS FOR (n:TableChunk) ON (n.doc_key);
CREATE INDEX passage_section IF NOT EXISTS FOR (n:Passage) ON (n.section_key);
CREATE VECTOR INDEX passage_embedding IF NOT EXISTS FOR (n:Passage) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX table_chunk_embedding IF NOT EXISTS FOR (n:TableChunk) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX section_title_embedding IF NOT EXISTS FOR (n:Section) ON n.title_embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
// Full text with the english analyzer (stemming, stopwords); doc_key is indexed with the text so that the
// document filter runs inside the Lucene query: doc_key:"<key>" AND (...).
CREATE FULLTEXT INDEX passage_text IF NOT EXISTS FOR (n:Passage|TableChunk) ON EACH [n.text, n.heading, n.doc_key]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
CREATE FULLTEXT INDEX section_title_text IF NOT EXISTS FOR (n:Section) ON EACH [n.section_path, n.doc_key]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
