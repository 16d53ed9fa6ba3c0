// The content graph's status, config, evolution, rounds and seconds on document $doc_key (null: never built).
MATCH (d:Document {key: $doc_key})
RETURN d.g2_status AS status, d.g2_config AS config, d.g2_evolution AS evolution, d.g2_rounds AS rounds,
       d.g2_evolution_seconds AS evolution_seconds, d.g2_seconds AS seconds
