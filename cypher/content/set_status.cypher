// Record the content graph's state on document $doc_key: $props of g2_status, g2_config, counts and times.
MATCH (d:Document {key: $doc_key})
SET d += $props
RETURN d.key AS key
