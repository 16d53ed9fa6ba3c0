// The chunk baselines' units to show and cite: chunks by key with their document's name. One record.
MATCH (c:Chunk) WHERE c.key IN $keys
MATCH (d:Document {key: c.doc_key})
RETURN collect({key: c.key, doc_key: c.doc_key, document: d.name, kind: 'chunk', text: c.text, pages: c.pages,
                order: c.ordinal}) AS rows
