// The ToC retriever's section candidates: the sections of document $doc_key in ToC order with their path and
// title embedding (read once per layout build and kept in memory by the TOC_Search operator). One record.
MATCH (:Document {key: $doc_key})-[:HAS_TOC]->(:TableOfContents)-[e:HAS_ENTRY]->(s:Section)
WITH s, e ORDER BY e.order
RETURN collect({key: s.key, path: s.section_path, title: s.title, embedding: s.title_embedding}) AS rows
