// Release document $key's lease if worker $owner holds it (locked before its owner is read).
MATCH (l:IndexLease {key: $key})
SET l.checked_at = datetime()
WITH l WHERE l.owner = $owner
DELETE l
RETURN count(*) AS released
