// BI: one row a document of the library.
// $doc: a document name, or null (or '') for the whole library.
// Columns: document, title, pages, sections, tree_nodes, entities, relations, gt_links, status, headings_from, indexed_at
MATCH (d:Document) WHERE coalesce($doc, '') = '' OR d.name = $doc
RETURN d.name AS document, d.title AS title, d.pages AS pages,
       COUNT { (s:Section {doc_key: d.key}) } AS sections, d.tree_nodes AS tree_nodes,
       d.graph_entities AS entities, d.graph_relations AS relations, d.graph_gt_links AS gt_links,
       d.status AS status, d.heading_source AS headings_from, toString(d.indexed_at) AS indexed_at
ORDER BY document
