// Evidence details of tree nodes: what is shown, cited and scored (text with tables linearised). With a
// $question_vector, also each node's similarity to it (vector.similarity.cosine, (1 + cos) / 2; null for
// nodes without an embedding), computed here so that embeddings never cross the wire.
MATCH (n:TreeNode) WHERE n.key IN $keys
MATCH (d:Document {key: n.doc_key})
RETURN n.key AS key, n.doc_key AS doc_key, d.name AS document, n.kind AS kind, n.title AS title,
       n.text AS text, n.caption AS caption, n.page_start AS page_start, n.page_end AS page_end,
       n.section_path AS section_path, n.bbox AS bbox, n.order AS order,
       CASE WHEN $question_vector IS NULL OR n.embedding IS NULL THEN null
            ELSE vector.similarity.cosine(n.embedding, $question_vector) END AS similarity
