// The size of a set of documents $doc_keys: pages, tree nodes, entities (for bookrag bench scale).
WITH $doc_keys AS keys
RETURN COUNT { MATCH (p:Page) WHERE p.doc_key IN keys } AS pages,
       COUNT { MATCH (n:TreeNode) WHERE n.doc_key IN keys } AS tree_nodes,
       COUNT { MATCH (e:Entity) WHERE e.doc_key IN keys } AS entities
