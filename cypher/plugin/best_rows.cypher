// layout/vectors.TableRows in bookrag-neo4j's plugin: for each table block of $tables in document $doc_key, its best
// row's similarity (1 + cos) / 2 to $embedding (no pair for a table without an embedded row). One record.
CALL bookrag.bestRows($doc_key, $embedding, $tables) YIELD key, score
RETURN collect([key, score]) AS rows
