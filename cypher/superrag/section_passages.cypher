// The first $per passages of each section in $keys (in the section's own blocks, reading order), as a ranking's
// keys in the order of $keys. One record.
UNWIND range(0, size($keys) - 1) AS i
CALL (i) {
  MATCH (p:Passage {section_key: $keys[i]})
  WITH p ORDER BY p.ordinal LIMIT $per
  RETURN collect(p.key) AS passages
}
RETURN collect(passages) AS rows
