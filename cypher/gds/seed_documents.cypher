// The documents of $doc_keys holding one of the entities $source_keys: those whose catalog projection a
// personalized PageRank from these entities needs (gds/node_pagerank).
MATCH (s:Entity) WHERE s.key IN $source_keys AND s.doc_key IN $doc_keys
RETURN DISTINCT s.doc_key AS doc_key
