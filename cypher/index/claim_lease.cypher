// Claim document $key's indexing lease for worker $owner, for $ttl_ms milliseconds, in one transaction.
// MERGE finds or creates the lease (one per key: constraint index_lease_key); the SET takes its write lock before
// anything is read, so concurrent claimers queue here and each reads what the previous one committed. The claim
// succeeds when the lease is new, already ours, or expired (a takeover of a worker that stopped renewing).
// Times are the server's clock, the same for every machine.
MERGE (l:IndexLease {key: $key})
SET l.checked_at = datetime()
WITH l, l.owner AS previous, l.expires AS expires
WITH l, previous, expires, previous IS NULL OR previous = $owner OR expires < datetime() AS claimed,
     previous IS NOT NULL AND previous <> $owner AND expires < datetime() AS takeover
FOREACH (_ IN CASE WHEN claimed THEN [1] ELSE [] END |
  SET l.owner = $owner, l.name = $doc_name, l.expires = datetime() + duration({milliseconds: $ttl_ms}),
      l.claimed_at = CASE WHEN previous = $owner THEN l.claimed_at ELSE datetime() END)
RETURN claimed, takeover, previous, expires AS previous_expires, l.owner AS owner, l.expires AS expires
