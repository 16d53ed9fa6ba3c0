// Delete the keywords that no node links to any more, and the stems that no keyword has.
MATCH (k:Keyword) WHERE NOT EXISTS { (k)<-[:HAS_KEYWORD]-() }
OPTIONAL MATCH (k)-[:HAS_STEM]->(s:Stem)
DETACH DELETE k
WITH DISTINCT s
WHERE s IS NOT NULL AND NOT EXISTS { (s)<-[:HAS_STEM]-() }
DELETE s
RETURN count(*) AS deleted
