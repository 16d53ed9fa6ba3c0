// Text2Cypher template, "the section titled X": the passages of the sections of the documents $doc_keys whose
// title contains $title (case-insensitive); reading order.
UNWIND $doc_keys AS doc
MATCH (s:TreeNode {doc_key: doc})
WHERE s:Section AND toLower(s.title) CONTAINS toLower($title)
MATCH (p:Passage {section_key: s.key})
RETURN p.key AS key, p.ordinal AS ordinal
ORDER BY ordinal
LIMIT 10
