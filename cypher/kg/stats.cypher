// Knowledge-graph counts of one document: entities (by type), ER merges, aliases, RELATED, CONTAINED_IN,
// GT-Links (MENTIONED_IN) and SAME_AS links.
CALL () {
  MATCH (e:Entity {doc_key: $doc_key})
  RETURN count(e) AS entities, sum(coalesce(e.merges, 0)) AS merges,
         sum(size(coalesce(e.aliases, []))) AS aliases, collect(e.type) AS types
}
CALL () {
  MATCH (:Entity {doc_key: $doc_key})-[r:RELATED]->()
  RETURN count(r) AS relations
}
CALL () {
  MATCH (:Entity {doc_key: $doc_key})-[r:CONTAINED_IN]->()
  RETURN count(r) AS contained_in
}
CALL () {
  MATCH (:Entity {doc_key: $doc_key})-[r:MENTIONED_IN]->()
  RETURN count(r) AS gt_links
}
CALL () {
  MATCH (:Entity {doc_key: $doc_key})-[r:SAME_AS]-()
  RETURN count(r) AS same_as
}
RETURN entities, merges, aliases, types, relations, contained_in, gt_links, same_as
