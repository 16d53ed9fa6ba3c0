"""Running Neo4j for bookrag-neo4j: an external server, a Docker container, or a local server from Maven Central.

The entry points are in :mod:`bookrag_neo4j.server.manager`: ``start_server``, ``stop_server``,
``server_status`` and ``connection_info``.
"""

from .manager import connection_info, server_status, start_server, stop_server
from .status import ServerStatus

__all__ = ["ServerStatus", "connection_info", "server_status", "start_server", "stop_server"]
