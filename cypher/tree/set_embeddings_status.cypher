// The embedding stage's state on the Document: 'embedding' while it writes block embeddings, 'complete' (with
// the embedder that wrote them) once no content block lacks one.
MATCH (d:Document {key: $doc_key})
SET d.embeddings_status = $status, d.embedder = $embedder
RETURN d.key AS key
