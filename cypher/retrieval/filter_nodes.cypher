// Filter_Modal and Filter_Range: content nodes of the scope by kind ($kinds: null for every kind), page range
// ($page_from/$page_to: null for no bound) and, when $within is a list, inside those nodes only.
// Keys in reading order, in one record.
MATCH (n:TreeNode)
WHERE n.doc_key IN $doc_keys AND n.kind <> 'section'
  AND ($kinds IS NULL OR n.kind IN $kinds)
  AND ($page_from IS NULL OR n.page_end >= $page_from)
  AND ($page_to IS NULL OR n.page_start <= $page_to)
  AND ($within IS NULL OR n.key IN $within)
WITH n ORDER BY n.doc_key, n.order
RETURN collect(n.key) AS rows
