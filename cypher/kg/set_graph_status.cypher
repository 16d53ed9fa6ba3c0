// Record the graph stage's state and figures on the Document node.
MATCH (d:Document {key: $doc_key})
SET d += $props
RETURN d.graph_status AS graph_status
