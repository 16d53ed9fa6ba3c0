// What document $doc_key's layout layer holds, counted in the graph (for stats and tests).
MATCH (d:Document {key: $doc_key})
RETURN
  COUNT { (d)-[:HAS_TOC]->(:TableOfContents)-[:HAS_ENTRY]->() } AS toc_entries,
  COUNT { MATCH (s:TreeNode {doc_key: $doc_key}) WHERE s:MasterSection RETURN s } AS master_sections,
  COUNT { MATCH (p:Passage {doc_key: $doc_key}) RETURN p } AS passages,
  COUNT { MATCH (r:TableChunk {doc_key: $doc_key}) RETURN r } AS table_rows,
  COUNT { MATCH (:TreeNode {doc_key: $doc_key})-[r:REFERS_TO]->() RETURN r } AS refers_to,
  COUNT { MATCH (:Passage {doc_key: $doc_key})-[r:HAS_KEYWORD]->() WHERE r.layer IS NULL RETURN r } AS keyword_links,
  COUNT { MATCH (p:Page {doc_key: $doc_key}) WHERE p.label <> '' RETURN p } AS labelled_pages,
  COUNT { CALL () { MATCH (n:Passage {doc_key: $doc_key}) RETURN n UNION MATCH (n:TableChunk {doc_key: $doc_key})
          RETURN n UNION MATCH (n:TreeNode {doc_key: $doc_key}) RETURN n } MATCH (n)-[r:SIMILAR]->() RETURN r } AS similar
