// Document $doc_key's content node keys in reading order (the readout's ties), when the plugin scores them. One record.
MATCH (n:ContentNode {doc_key: $doc_key})
WITH n ORDER BY n.g2_order
RETURN collect({key: n.key}) AS rows
