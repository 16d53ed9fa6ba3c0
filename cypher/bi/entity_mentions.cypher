// BI: how often each entity is mentioned (GT-Links) in each top-level section.
// $doc: a document name, or null (or '') for the whole library. $limit: the most-mentioned rows.
// Columns: document, section, entity, type, mentions, pages, first_page
MATCH (d:Document) WHERE coalesce($doc, '') = '' OR d.name = $doc
MATCH (s:Section {doc_key: d.key}) WHERE s.depth = 1
MATCH (s)-[:HAS_CHILD*0..]->(n:TreeNode)<-[:MENTIONED_IN]-(e:Entity)
WITH d, s, e, count(n) AS mentions, count(DISTINCT n.page_start) AS pages, min(n.page_start) AS first_page
RETURN d.name AS document, s.title AS section, e.name AS entity, e.type AS type, mentions, pages, first_page
ORDER BY mentions DESC, document, section, entity
LIMIT $limit
