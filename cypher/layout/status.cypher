// The layout layer's status and config on document $doc_key (null: never built).
MATCH (d:Document {key: $doc_key})
RETURN d.layout_status AS status, d.layout_config AS config
