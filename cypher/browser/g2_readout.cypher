// A G²-Reader answer's readout subgraph: the content nodes it read ($nodes: the evidence keys of `bookrag ask
// --json` or `bookrag retrieve --json`; for another method's tree-node evidence, the passages that cover it),
// their G2_LINK edges (window, knn, llm) to the nodes they are linked to, and the keywords two of them share.
// `bookrag browse --answer-trace answer.json` shows it for the g2 methods.
WITH $nodes AS nodes
MATCH (n:ContentNode) WHERE n.key IN nodes OR EXISTS { (n)-[:COVERS]->(b) WHERE b.key IN nodes }
OPTIONAL MATCH link = (n)-[:G2_LINK]-(:ContentNode)
OPTIONAL MATCH shared = (n)-[:HAS_KEYWORD]->(:Keyword)<-[:HAS_KEYWORD]-(o:ContentNode)
  WHERE o.key IN nodes AND o <> n
RETURN n, link, shared
