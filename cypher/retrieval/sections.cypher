// The table of contents of the scope (for Select_by_Section and Filter_Range by section title).
MATCH (s:Section) WHERE s.doc_key IN $doc_keys
RETURN s.key AS key, s.doc_key AS doc_key, s.title AS title, s.level AS level, s.section_path AS path,
       s.page_start AS page_start, s.page_end AS page_end
ORDER BY s.doc_key, s.order
