// Claim document $key's indexing lease for worker $owner, for $ttl_ms milliseconds, in one transaction.
// MERGE finds or creates the lease (one per key: constraint index_lease_key); the SET takes its write lock before
// anything is read, so concurrent claimers queue here and each reads what the previous one committed. The claim
// succeeds when the lease is new, already ours, expired (a takeover of a worker that stopped renewing), or still
// held by $gone, an owner whose process the caller saw gone on its own machine (null: none).
// Times are the server's clock, the same for every machine. A claim queued behind a release finds the lease deleted
// once it holds the lock: it returns no expires, and the caller claims again (index/leases.py).
MERGE (l:IndexLease {key: $key})
SET l.checked_at = datetime()
WITH l, l.owner AS previous, l.expires AS expires
WITH l, previous, expires, coalesce(previous = $gone, false) AS gone
WITH l, previous, expires, gone, previous IS NULL OR previous = $owner OR expires < datetime() OR gone AS claimed,
     previous IS NOT NULL AND previous <> $owner AND (expires < datetime() OR gone) AS takeover
FOREACH (_ IN CASE WHEN claimed THEN [1] ELSE [] END |
  SET l.owner = $owner, l.name = $doc_name, l.expires = datetime() + duration({milliseconds: $ttl_ms}),
      l.claimed_at = CASE WHEN previous = $owner THEN l.claimed_at ELSE datetime() END)
RETURN claimed, takeover, gone, previous, expires AS previous_expires, l.owner AS owner, l.expires AS expires
