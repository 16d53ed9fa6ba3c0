// Record why indexing document $key failed: the reason ($error) and the time ($at, ISO 8601) on its Document
// node, so that every door shows it as failed until a run succeeds (library/clear_failure). A file rejected
// before anything was written (not a PDF, encrypted, no text) has no node: it stays unwritten.
MATCH (d:Document {key: $key})
SET d.error = $error, d.failed_at = $at
RETURN d.key AS key
