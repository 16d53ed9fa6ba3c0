// The heartbeat: extend document $key's lease by $ttl_ms milliseconds if worker $owner still holds it (the SET
// locks the lease before its owner is read). No row: the lease is gone or another worker took it over.
MATCH (l:IndexLease {key: $key})
SET l.checked_at = datetime()
WITH l WHERE l.owner = $owner
SET l.expires = datetime() + duration({milliseconds: $ttl_ms})
RETURN l.expires AS expires
