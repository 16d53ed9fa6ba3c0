"""Running Neo4j for bookrag-neo4j: an external server, a Docker container, or a local server from Maven Central.

The entry points are in :mod:`bookrag_neo4j.server.manager`: ``start_server``, ``stop_server``,
``server_status``, ``connection_info`` and ``instance_settings``.
"""

from .manager import connection_info, instance_settings, server_status, start_server, stop_server
from .status import ServerStatus

__all__ = ["ServerStatus", "connection_info", "instance_settings", "server_status", "start_server", "stop_server"]
