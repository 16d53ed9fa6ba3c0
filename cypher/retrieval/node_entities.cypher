// For Graph_Reasoning: each entity GT-Linked to the tree nodes $node_keys, the nodes it is linked to among
// them, and (when $with_edges) its outgoing RELATED/CONTAINED_IN edges as [target key, weight]; the caller
// keeps the edges whose target is in the subgraph. One round trip for the whole subgraph.
MATCH (n:TreeNode) WHERE n.key IN $node_keys
MATCH (e:Entity)-[:MENTIONED_IN]->(n)
WITH e, collect(n.key) AS nodes
RETURN e.key AS entity, nodes,
       CASE WHEN $with_edges
            THEN COLLECT { MATCH (e)-[r:RELATED|CONTAINED_IN]->(b:Entity) RETURN [b.key, coalesce(r.weight, 1.0)] }
            ELSE [] END AS edges
