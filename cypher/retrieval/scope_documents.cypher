// The documents a question is asked of: those with keys in $doc_keys, or (null) every complete document.
// graph_version names one build of the document's knowledge graph (null until it is complete): in-memory
// copies of the graph (retrieval/entity_graph) are kept while it stays the same.
MATCH (d:Document)
WHERE d.status = 'complete' AND ($doc_keys IS NULL OR d.key IN $doc_keys)
RETURN d.key AS key, d.name AS name, d.title AS title, d.pages AS pages,
       CASE WHEN d.graph_status = 'complete'
            THEN d.graph_config + '|' + coalesce(d.graph_built_at, '') + '|' + toString(d.graph_entities) + '|' +
                 toString(d.graph_relations) + '|' + toString(d.graph_gt_links) END AS graph_version
ORDER BY d.name
