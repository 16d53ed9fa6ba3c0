// Record the layout layer's state on document $doc_key: $props of layout_status, layout_config, counts, times.
MATCH (d:Document {key: $doc_key})
SET d += $props
RETURN d.key AS key
