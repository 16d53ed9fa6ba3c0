// GDS's memory estimate for projecting $nodes nodes and $relationships relationships (a fictitious graph of those
// counts, undirected, with one weight property): the budget gds.graph.project.estimate gives before projecting.
CALL gds.graph.project.estimate('*',
  {R: {type: '*', orientation: 'UNDIRECTED', properties: {weight: {defaultValue: 1.0}}}},
  {nodeCount: $nodes, relationshipCount: $relationships})
YIELD bytesMin, bytesMax
RETURN bytesMin AS bytes_min, bytesMax AS bytes_max
