// The table of contents of the scope (for Select_by_Section and Filter_Range by section title).
// In reading order, in one record.
MATCH (s:Section) WHERE s.doc_key IN $doc_keys
WITH s ORDER BY s.doc_key, s.order
RETURN collect({key: s.key, doc_key: s.doc_key, title: s.title, level: s.level, path: s.section_path,
                page_start: s.page_start, page_end: s.page_end}) AS rows
