"""Exact similarity of a question to one document's stored vectors, in Neo4j: by bookrag-neo4j's own plugin
(``docker/plugin``) where the server has it, else by Cypher's ``vector.similarity.cosine``.

    query = await vector_query(db, "retrieval/nearest_nodes", engine="auto")   # or "plugin/..."
    version = await plugin_version(db)        # "1.4.0", or None on a server without the plugin

Both give the same scores to the bit (the plugin calls the function ``vector.similarity.cosine`` calls), the same
ranks and the same tie order (by key); the plugin reads each stored ``float[]`` without building a Cypher list of
it. A plugin of another version than this package's is not used (``bookrag doctor`` says so).
"""

from __future__ import annotations

from neo4j.exceptions import ClientError

from ..errors import ConfigurationError
from .client import Neo4jClient

PLUGIN_VERSION = "1.4.0"  # docker/plugin/pom.xml's and its Vectors.VERSION: this package uses only this one

PLUGIN_QUERIES = {"retrieval/nearest_nodes": "plugin/nearest_nodes",
                  "retrieval/link_entities": "plugin/link_entities"}
_VERSIONS: dict[tuple[str, str], str | None] = {}  # (uri, database) -> the plugin's version, None without it


async def plugin_version(db: Neo4jClient, *, fresh: bool = False) -> str | None:
    """The version of the plugin ``graph``'s server has loaded, or None: asked once a server and database by this
    process (``fresh``: ask again)."""
    slot = (db.conn.uri, db.conn.database)
    if fresh or slot not in _VERSIONS:
        try:
            rows = await db.read("server/plugin_version")
            _VERSIONS[slot] = str(rows[0]["version"]) if rows else None
        except ClientError as exc:
            if exc.code != "Neo.ClientError.Procedure.ProcedureNotFound":
                raise
            _VERSIONS[slot] = None
    return _VERSIONS[slot]


async def use_plugin(db: Neo4jClient, *, engine: str) -> bool:
    """Whether a per-question read runs in the plugin: ``engine`` is ``plugin``, or ``auto`` and the server has the
    plugin of this package's version (``plugin`` on a server without it is a configuration error)."""
    if engine == "cypher":
        return False
    version = await plugin_version(db)
    if version == PLUGIN_VERSION:
        return True
    if engine == "plugin":
        raise ConfigurationError(f"BOOKRAG_VECTOR_ENGINE=plugin, but the server at {db.conn.uri} has "
                                 + (f"bookrag-neo4j's plugin {version}, not {PLUGIN_VERSION}" if version else
                                    "no bookrag-neo4j plugin (docker/plugin)") + ": use auto or cypher")
    return False


async def vector_query(db: Neo4jClient, query: str, *, engine: str) -> str:
    """The named query to run for ``query`` (one of :data:`PLUGIN_QUERIES`' keys): the plugin's where
    :func:`use_plugin`, else ``query`` itself."""
    return PLUGIN_QUERIES[query] if await use_plugin(db, engine=engine) else query
