// Document $key indexed without error: forget an earlier failure (library/record_failure).
MATCH (d:Document {key: $key})
WHERE d.error IS NOT NULL OR d.failed_at IS NOT NULL
REMOVE d.error, d.failed_at
