// Content-graph links of one batch: $rows of {a, b, kind, score, t}; kind is 'window' (reading order), 'knn'
// (evolution) or 'llm' (a relation the LLM inferred); t is the evolution round that made it (0: the window).
UNWIND $rows AS row
MATCH (a:ContentNode {key: row.a})
MATCH (b:ContentNode {key: row.b})
MERGE (a)-[r:G2_LINK {kind: row.kind}]->(b)
SET r.score = row.score, r.t = row.t
RETURN count(r) AS written
