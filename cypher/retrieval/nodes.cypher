// Evidence details of tree nodes: what is shown and cited (text with tables linearised). One record.
MATCH (n:TreeNode) WHERE n.key IN $keys
MATCH (d:Document {key: n.doc_key})
RETURN collect({
  key: n.key, doc_key: n.doc_key, document: d.name, kind: n.kind, title: n.title, text: n.text,
  caption: n.caption, page_start: n.page_start, page_end: n.page_end, section_path: n.section_path,
  bbox: n.bbox, order: n.order
}) AS rows
