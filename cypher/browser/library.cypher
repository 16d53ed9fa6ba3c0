// The library: every indexed document.
MATCH (d:Document)
RETURN d
