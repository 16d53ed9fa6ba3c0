// Text2Cypher template, "what is on page 12?": the passages on the page whose printed label is $page (lower-case), or else on
// the physical page $number, of the documents $doc_keys; reading order.
UNWIND $doc_keys AS doc
OPTIONAL MATCH (printed:Page {doc_key: doc}) WHERE $page <> "" AND toLower(printed.label) = $page
OPTIONAL MATCH (physical:Page {doc_key: doc, number: $number})
WITH DISTINCT coalesce(printed, physical) AS pg
WHERE pg IS NOT NULL
MATCH (p:Passage)-[:ON_PAGE]->(pg)
RETURN DISTINCT p.key AS key, p.ordinal AS ordinal
ORDER BY ordinal
LIMIT 10
