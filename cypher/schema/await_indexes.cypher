// Block until every index is ONLINE (or $seconds pass, then fail).
CALL db.awaitIndexes($seconds)
