// The content graph's schema (bookrag_neo4j.content.build applies it before a build), with $dimensions = the
// embedder's dimension. Idempotent (IF NOT EXISTS). A :ContentNode is a :Passage or a table or image :TreeNode.
CREATE INDEX content_node_key IF NOT EXISTS FOR (n:ContentNode) ON (n.key);
CREATE INDEX content_node_doc IF NOT EXISTS FOR (n:ContentNode) ON (n.doc_key);
CREATE VECTOR INDEX content_node_embedding IF NOT EXISTS FOR (n:ContentNode) ON n.g2_embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
// Full text over the node's text and its summary and keywords (g2_text), english analyzer; doc_key is indexed
// with them so that the document filter runs inside the Lucene query.
CREATE FULLTEXT INDEX content_node_text IF NOT EXISTS FOR (n:ContentNode) ON EACH [n.text, n.g2_text, n.doc_key]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
