// An answer's evidence as a small graph to draw (SDK `evidence_graph`): the evidence nodes ($nodes), the
// sections (or, before the first section, the document) they hang from, the question's linked entities ($seeds) and the entities RELATED to a seed that
// are GT-Linked to the evidence. One row an edge: source and target (key, kind, caption) and its type.
MATCH (n:TreeNode) WHERE n.key IN $nodes
CALL (n) {
  MATCH (s:Section|Document)-[:HAS_CHILD]->(n)
  RETURN s AS source, 'HAS_CHILD' AS type, n AS target
  UNION
  MATCH (e:Entity)-[:MENTIONED_IN]->(n)
  WHERE e.key IN $seeds OR EXISTS { (e)-[:RELATED|CONTAINED_IN]-(seed:Entity) WHERE seed.key IN $seeds }
  RETURN e AS source, 'MENTIONED_IN' AS type, n AS target
  UNION
  MATCH (e:Entity)-[:MENTIONED_IN]->(n)
  MATCH (e)-[r:RELATED|CONTAINED_IN]->(seed:Entity) WHERE seed.key IN $seeds AND e <> seed
  RETURN e AS source, type(r) AS type, seed AS target
  UNION
  MATCH (e:Entity)-[:MENTIONED_IN]->(n)
  MATCH (seed:Entity)-[r:RELATED|CONTAINED_IN]->(e) WHERE seed.key IN $seeds AND e <> seed
  RETURN seed AS source, type(r) AS type, e AS target
}
WITH DISTINCT source, type, target
UNWIND [source, target] AS end
WITH source, type, target, end,
     coalesce(CASE WHEN end:Entity THEN end.name WHEN end:Section OR end:Document THEN end.title
                   ELSE end.kind + ' p.' + toString(end.page_start) END, '') AS caption
WITH source, type, target, collect(caption) AS captions
RETURN source.key AS source,
       coalesce(source.kind, CASE WHEN source:Document THEN 'document' ELSE 'entity' END) AS source_kind, captions[0] AS source_caption,
       type, target.key AS target, coalesce(target.kind, 'entity') AS target_kind, captions[1] AS target_caption
LIMIT $limit
