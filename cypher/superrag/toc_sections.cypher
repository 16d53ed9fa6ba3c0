// The ToC retriever's section candidates: every section of the documents $doc_keys with its path and the cosine
// of its title embedding to $embedding (exact, per document). One record.
UNWIND $doc_keys AS doc
MATCH (:Document {key: doc})-[:HAS_TOC]->(:TableOfContents)-[e:HAS_ENTRY]->(s:Section)
WITH s, e ORDER BY s.doc_key, e.order
RETURN collect({key: s.key, path: s.section_path, title: s.title,
                similarity: CASE WHEN s.title_embedding IS NULL THEN 0.0
                                 ELSE vector.similarity.cosine(s.title_embedding, $embedding) END}) AS rows
