MATCH (d:Document)
RETURN d.key AS key, d.name AS name, d.title AS title, d.pages AS pages, d.status AS status,
       d.heading_source AS heading_source, d.tree_nodes AS tree_nodes, d.indexed_at AS indexed_at
ORDER BY d.name
