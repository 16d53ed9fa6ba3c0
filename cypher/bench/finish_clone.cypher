// Clone $clone is complete: its Document takes its source's tree status and clone_status 'complete'.
MATCH (d:Document {key: $clone})
MATCH (s:Document {key: d.clone_of})
SET d.status = s.status, d.clone_status = 'complete'
RETURN d.key AS key
