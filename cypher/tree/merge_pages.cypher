// Page nodes of a document, linked from it with HAS_PAGE.
MATCH (d:Document {key: $doc_key})
UNWIND $rows AS row
MERGE (p:Page {key: row.key})
SET p += row.props
MERGE (d)-[:HAS_PAGE]->(p)
RETURN count(p) AS written
