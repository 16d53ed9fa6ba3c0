// Graph_Reasoning in bookrag-neo4j's plugin (bookrag.pageRank): gds/node_pagerank's scores, computed on the stored
// graph without a catalog projection. For each document of $doc_keys holding one of the entities $source_keys:
// personalized PageRank over its entity graph teleporting to them, and each of its tree nodes among $node_keys
// scored from its GT-Linked entities' scores ($node_score: sum, mean or max). One record: rows = [[key, score], ...].
UNWIND $doc_keys AS doc_key
CALL bookrag.pageRank(doc_key, $source_keys, $node_keys, {dampingFactor: $damping, maxIterations: $max_iterations,
                      tolerance: $tolerance, nodeScore: $node_score}) YIELD key, score
RETURN collect([key, score]) AS rows
