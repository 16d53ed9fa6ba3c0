// The rest of document $doc_key's layout layer (after its passages and rows): the ToC, NEXT_SECTION,
// REFERS_TO and SIMILAR edges of its tree nodes, :MasterSection and title embeddings.
OPTIONAL MATCH (t:TableOfContents {doc_key: $doc_key})
DETACH DELETE t
WITH count(*) AS _
MATCH (n:TreeNode {doc_key: $doc_key})
OPTIONAL MATCH (n)-[r:NEXT_SECTION|REFERS_TO|SIMILAR]-()
DELETE r
WITH DISTINCT n
REMOVE n:MasterSection, n.title_embedding
RETURN count(n) AS deleted
