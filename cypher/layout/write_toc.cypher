// The table of contents of document $doc_key: (:Document)-[:HAS_TOC]->(:TableOfContents)-[:HAS_ENTRY {order}]->
// (:Section) for $rows of {key, order, master, embedding}; top-level sections get :MasterSection and every
// section its title embedding.
MATCH (d:Document {key: $doc_key})
MERGE (t:TableOfContents {key: $toc_key})
SET t.doc_key = $doc_key, t.entries = size($rows), t.title = d.title
MERGE (d)-[:HAS_TOC]->(t)
WITH t
UNWIND $rows AS row
MATCH (s:TreeNode {key: row.key})
MERGE (t)-[e:HAS_ENTRY]->(s)
SET e.order = row.order
FOREACH (_ IN CASE WHEN row.master THEN [1] ELSE [] END | SET s:MasterSection)
WITH s, row
CALL db.create.setNodeVectorProperty(s, 'title_embedding', row.embedding)
RETURN count(*) AS written
