// Unlink document $doc_key's passages from their keywords; delete the keywords and stems no one else uses.
MATCH (:Passage {doc_key: $doc_key})-[r:HAS_KEYWORD]->(k:Keyword)
DELETE r
WITH DISTINCT k
WHERE NOT EXISTS { (k)<-[:HAS_KEYWORD]-() }
OPTIONAL MATCH (k)-[:HAS_STEM]->(s:Stem)
DETACH DELETE k
WITH DISTINCT s
WHERE s IS NOT NULL AND NOT EXISTS { (s)<-[:HAS_STEM]-() }
DELETE s
RETURN count(*) AS deleted
