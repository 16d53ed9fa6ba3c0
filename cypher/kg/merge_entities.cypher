// Entities of one batch: MERGE on the content-hash key (uniqueness constraint entity_key), then set their
// properties (name, type, name_key, doc_key, embedding, description, aliases, merges, merged_from, mentions).
UNWIND $rows AS row
MERGE (e:Entity {key: row.key})
SET e += row.props
RETURN count(e) AS written
