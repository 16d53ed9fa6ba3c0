// superrag/toc_sections without the title embeddings, when bookrag-neo4j's plugin scores the titles in the server.
// One record.
MATCH (:Document {key: $doc_key})-[:HAS_TOC]->(:TableOfContents)-[e:HAS_ENTRY]->(s:Section)
WITH s, e ORDER BY e.order
RETURN collect({key: s.key, path: s.section_path, title: s.title, embedding: null}) AS rows
