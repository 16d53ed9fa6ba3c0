// The recovered table of contents: one row a section, in reading order.
MATCH (s:Section {doc_key: $doc_key})
RETURN s.title AS title, s.level AS level, s.page_start AS page, s.key AS key
ORDER BY s.order
