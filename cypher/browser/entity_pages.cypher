// An entity's GT-Links back to the tree nodes it was extracted from, and their pages.
// In Browser, edit the first line: WITH "R-intro.pdf" AS doc, "lm" AS entity
WITH $doc AS doc, $entity AS entity
MATCH (d:Document {name: doc})
MATCH (e:Entity {doc_key: d.key})
WHERE toLower(e.name) = toLower(entity) OR toLower(entity) IN [a IN coalesce(e.aliases, []) | toLower(a)]
MATCH path = (e)-[:MENTIONED_IN]->(:TreeNode)-[:ON_PAGE]->(:Page)
RETURN path
LIMIT 200
