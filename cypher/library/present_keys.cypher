// Which of the document keys $doc_keys are still in the database, in one record.
MATCH (d:Document)
WHERE d.key IN $doc_keys
RETURN collect(d.key) AS rows
