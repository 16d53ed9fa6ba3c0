// The version of bookrag-neo4j's own plugin (docker/plugin); fails with ProcedureNotFound on a server without it.
CALL bookrag.version() YIELD version
RETURN version
