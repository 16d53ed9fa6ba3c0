// Document $doc_key's printed page labels (the layout layer's pages; none where it is not built): the label as
// printed ("1", "ix", "6985") and the physical page number it is on. One record.
MATCH (p:Page {doc_key: $doc_key}) WHERE p.label IS NOT NULL AND p.label <> ''
RETURN collect({label: toLower(p.label), number: p.number}) AS rows
