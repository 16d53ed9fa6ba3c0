// The boxes that show evidence units on their pages: a tree node's own box, the boxes of the blocks a passage
// covers, or the box of the table a table row belongs to. One row a unit.
// Columns: key, boxes (a list of {page, bbox})
UNWIND $keys AS key
OPTIONAL MATCH (t:TreeNode {key: key})
OPTIONAL MATCH (p:Passage {key: key})
OPTIONAL MATCH (r:TableChunk {key: key})
RETURN key, CASE
  WHEN t IS NOT NULL AND t.bbox IS NOT NULL THEN [{page: t.page_start, bbox: t.bbox}]
  WHEN p IS NOT NULL THEN COLLECT {
    MATCH (p)-[c:COVERS]->(b) WHERE b.bbox IS NOT NULL RETURN {page: b.page_start, bbox: b.bbox} ORDER BY c.order }
  WHEN r IS NOT NULL THEN COLLECT {
    MATCH (tab:TreeNode)-[:HAS_ROW]->(r) WHERE tab.bbox IS NOT NULL RETURN {page: tab.page_start, bbox: tab.bbox} }
  ELSE [] END AS boxes
