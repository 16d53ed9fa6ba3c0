// The tree nodes of a document in reading order, with what entity extraction reads of them.
MATCH (n:TreeNode {doc_key: $doc_key})
RETURN n.key AS key, n.kind AS kind, n.title AS title, n.text AS text, n.caption AS caption,
       n.table_markdown AS table_markdown, n.image_path AS image_path, n.section_path AS section_path,
       n.page_start AS page_start, n.page_end AS page_end, n.order AS order
ORDER BY n.order
