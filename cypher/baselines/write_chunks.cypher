// Write evaluation chunks: $rows of {key, doc_key, ordinal, text, pages, embedding, chunker}.
UNWIND $rows AS row
MERGE (c:Chunk {key: row.key})
SET c.doc_key = row.doc_key, c.ordinal = row.ordinal, c.text = row.text, c.pages = row.pages,
    c.chunker = row.chunker
WITH c, row
CALL db.create.setNodeVectorProperty(c, 'embedding', row.embedding)
RETURN count(*) AS written
