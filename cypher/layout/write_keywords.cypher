// Keywords of passages: $rows of {passage, keyword, stem}:
// (:Passage)-[:HAS_KEYWORD]->(:Keyword)-[:HAS_STEM]->(:Stem), keywords and stems shared by the library.
UNWIND $rows AS row
MATCH (p:Passage {key: row.passage})
MERGE (k:Keyword {key: row.keyword})
ON CREATE SET k.name = row.keyword
MERGE (s:Stem {key: row.stem})
ON CREATE SET s.name = row.stem
MERGE (p)-[:HAS_KEYWORD]->(k)
MERGE (k)-[:HAS_STEM]->(s)
RETURN count(*) AS written
