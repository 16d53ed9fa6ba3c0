// Full-text search over passages and table rows (index passage_text, english analyzer): $query is a Lucene query
// whose document filter (doc_key:"…") runs inside the index. The $top best. One record.
CALL db.index.fulltext.queryNodes('passage_text', $query, {limit: $top}) YIELD node, score
RETURN collect({key: node.key, score: score}) AS rows
