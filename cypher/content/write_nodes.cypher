// Content nodes of one batch: $rows of {key, order, summary, keywords: [{key, name, stem}], text, embedding,
// initial}: the passage or tree node becomes a :ContentNode with its summary, keywords, searchable text (g2_text), its embedding before
// (g2_embedding0) and after the evolution (g2_embedding). Keywords are shared (:Keyword) nodes; the links this
// stage adds carry layer 'content-graph' (a passage's layout keywords stay as they are).
UNWIND $rows AS row
CALL (row) {
  MATCH (n:Passage {key: row.key}) RETURN n
  UNION
  MATCH (n:TreeNode {key: row.key}) RETURN n
}
SET n:ContentNode, n.g2_order = row.order, n.g2_summary = row.summary, n.g2_keywords = [k IN row.keywords | k.name],
    n.g2_text = row.text
WITH n, row
CALL db.create.setNodeVectorProperty(n, 'g2_embedding', row.embedding)
CALL db.create.setNodeVectorProperty(n, 'g2_embedding0', row.initial)
CALL (n, row) {
  UNWIND row.keywords AS keyword
  MERGE (k:Keyword {key: keyword.key})
  ON CREATE SET k.name = keyword.name
  MERGE (s:Stem {key: keyword.stem})
  ON CREATE SET s.name = keyword.stem
  MERGE (k)-[:HAS_STEM]->(s)
  MERGE (n)-[r:HAS_KEYWORD]->(k)
  ON CREATE SET r.layer = 'content-graph'
}
RETURN count(n) AS written
