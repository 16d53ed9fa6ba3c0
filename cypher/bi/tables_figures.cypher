// BI: the inventory of tables and figures, with captions, pages and where they sit.
// $doc: a document name, or null (or '') for the whole library.
// Columns: document, kind, caption, page_start, page_end, section_path, rows, columns
MATCH (d:Document) WHERE coalesce($doc, '') = '' OR d.name = $doc
MATCH (n:TreeNode {doc_key: d.key}) WHERE n:Table OR n:Image
RETURN d.name AS document, CASE WHEN n:Table THEN 'table' ELSE 'figure' END AS kind,
       coalesce(n.caption, n.title, '') AS caption, n.page_start AS page_start, n.page_end AS page_end,
       n.section_path AS section_path, n.n_rows AS rows, n.n_cols AS columns
ORDER BY document, n.order
