// The size of a set of documents $doc_keys: pages, tree nodes, entities (for bookrag bench scale).
MATCH (d:Document) WHERE d.key IN $doc_keys
WITH sum(d.pages) AS pages, collect(d.key) AS keys
RETURN pages,
       COUNT { MATCH (n:TreeNode) WHERE n.doc_key IN keys } AS tree_nodes,
       COUNT { MATCH (e:Entity) WHERE e.doc_key IN keys } AS entities
