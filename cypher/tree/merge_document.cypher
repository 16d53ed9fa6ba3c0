// Create or update a document (the root of its tree) by content-hash key.
MERGE (d:Document {key: $key})
SET d += $props
RETURN d.key AS key
