// The Document node of clone number $number of document $source: its properties, key $clone, name $clone_name,
// clone_of and clone_number, and clone_status 'copying' (status 'writing') until finish_clone.
MATCH (s:Document {key: $source})
CREATE (d:Document)
SET d = s {.*, key: $clone, name: $clone_name, clone_of: s.key, clone_number: $number, clone_status: 'copying',
           status: 'writing'}
RETURN d.key AS key
