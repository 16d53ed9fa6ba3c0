// A section's subtree (its sub-sections and blocks) with the entities GT-Linked to its blocks.
// The first section, in reading order, whose title contains `section` (case-insensitive).
// In Browser, edit the first line: WITH "R-intro.pdf" AS doc, "Probability distributions" AS section
WITH $doc AS doc, $section AS section
MATCH (d:Document {name: doc})
MATCH (s:Section {doc_key: d.key})
WHERE toLower(s.title) CONTAINS toLower(section)
WITH s ORDER BY s.order LIMIT 1
MATCH tree = (s)-[:HAS_CHILD*0..4]->(n:TreeNode)
OPTIONAL MATCH gt = (e:Entity)-[:MENTIONED_IN]->(n)
RETURN tree, gt
LIMIT 300
