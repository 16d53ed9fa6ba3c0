// Evidence details of tree nodes: what is shown, cited and scored (text with tables linearised).
MATCH (n:TreeNode) WHERE n.key IN $keys
MATCH (d:Document {key: n.doc_key})
RETURN n.key AS key, n.doc_key AS doc_key, d.name AS document, n.kind AS kind, n.title AS title,
       n.text AS text, n.caption AS caption, n.page_start AS page_start, n.page_end AS page_end,
       n.section_path AS section_path, n.bbox AS bbox, n.order AS order,
       CASE WHEN $with_embedding THEN n.embedding END AS embedding
