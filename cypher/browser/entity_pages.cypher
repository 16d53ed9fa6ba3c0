// An entity's GT-Links back to the tree nodes it was extracted from, and their pages. The entity is found by its
// name or an alias (any case), or by its identity, the lower-case name without a legal form ("foot locker" finds
// "Foot Locker, Inc.").
// In Browser, edit the first line: WITH "R-intro.pdf" AS doc, "lm" AS entity
WITH $doc AS doc, $entity AS entity
MATCH (d:Document {name: doc})
MATCH (e:Entity {doc_key: d.key})
WHERE toLower(e.name) = toLower(entity) OR toLower(entity) IN [a IN coalesce(e.aliases, []) | toLower(a)]
   OR split(e.name_key, '|')[0] = toLower(entity)
MATCH path = (e)-[:MENTIONED_IN]->(:TreeNode)-[:ON_PAGE]->(:Page)
RETURN path
LIMIT 200
