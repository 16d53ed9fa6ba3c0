// The keys of a document's tree nodes (sections and blocks), one record: a forced re-index compares them with
// its new tree.
MATCH (n:TreeNode {doc_key: $doc_key})
RETURN collect(n.key) AS rows
