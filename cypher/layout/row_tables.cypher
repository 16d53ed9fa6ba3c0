// The table of each table row among $keys: {row, table} pairs. One record.
MATCH (r:TableChunk) WHERE r.key IN $keys
RETURN collect({row: r.key, table: r.table_key}) AS rows
