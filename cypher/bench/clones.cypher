// The clones in the library (Documents with clone_of), by clone number, in one record.
MATCH (d:Document) WHERE d.clone_of IS NOT NULL
WITH d ORDER BY d.clone_number, d.key
RETURN collect(d {.key, .name, .clone_of, .clone_number, .clone_status}) AS rows
