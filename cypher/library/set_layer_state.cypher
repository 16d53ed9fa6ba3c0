// Record a layer's build state on document $doc_key: $props of <layer>_status, _config, _seconds, _built_at and
// its figures (library/layers.py, the one writer; the keys are checked there).
MATCH (d:Document {key: $doc_key})
SET d += $props
RETURN d.key AS key
