// BI: what indexing each document cost: its size, the time per phase and the LLM calls and tokens.
// $doc: a document name, or null (or '') for the whole library.
// Columns: document, pages, tree_nodes, entities, index_seconds, graph_seconds, llm_calls, tokens, pages_per_second
MATCH (d:Document) WHERE coalesce($doc, '') = '' OR d.name = $doc
RETURN d.name AS document, d.pages AS pages, d.tree_nodes AS tree_nodes, d.graph_entities AS entities,
       d.index_seconds AS index_seconds, d.graph_seconds AS graph_seconds,
       coalesce(d.index_llm_calls, 0) + coalesce(d.graph_llm_calls, 0) AS llm_calls,
       coalesce(d.index_tokens, 0) + coalesce(d.graph_tokens, 0) AS tokens,
       CASE WHEN d.index_seconds > 0 THEN round(toFloat(d.pages) / d.index_seconds, 2) END AS pages_per_second
ORDER BY document
