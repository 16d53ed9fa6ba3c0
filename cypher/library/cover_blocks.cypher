// The text of a document's first $pages pages in reading order (blocks and section titles): what its card is read
// from (bookrag_neo4j/index/card_reader.py).
MATCH (n:TreeNode {doc_key: $doc_key})
WHERE n.page_start >= 1 AND n.page_start <= $pages AND coalesce(n.text, n.title, '') <> ''
RETURN coalesce(n.text, n.title) AS text
ORDER BY n.order
LIMIT 200
