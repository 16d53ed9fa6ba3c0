"""Async access to Neo4j: one driver, named queries, the driver's managed transactions and retries.

    conn = ConnectionInfo("bolt://localhost:7687", "neo4j", "secret", "neo4j")
    async with GraphClient(conn) as graph:
        rows = await graph.read("server/versions")
        await graph.write("schema/some_write", key="abc")

Reads are routed to readers (``routing_=READ``), every call names its database (``database_=``), and
driver errors that mean "Neo4j is not there" become :class:`~bookrag_neo4j.errors.Neo4jUnavailableError`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from neo4j import AsyncGraphDatabase, EagerResult, NotificationDisabledClassification, Query, RoutingControl
from neo4j.exceptions import AuthError, Neo4jError, ServiceUnavailable, SessionExpired

from ..errors import Neo4jUnavailableError, QueryRefusedError, UserQueryError
from .queries import load_query

log = logging.getLogger(__name__)

USER_QUERY_TIMEOUT = 30.0  # seconds a user's query may run (run_user_query)
QUERY_TYPES = {"rw": "read-write", "w": "write", "s": "a schema change"}


@dataclass(frozen=True)
class ConnectionInfo:
    """Where and how to connect to Neo4j."""

    uri: str
    username: str
    password: str = field(repr=False)
    database: str = "neo4j"


@dataclass(frozen=True)
class ServerVersions:
    """What a server reports about itself."""

    neo4j_version: str
    edition: str
    gds_version: str | None


class GraphClient:
    """Async Neo4j client that runs named queries from ``cypher/``; use it as an async context manager."""

    def __init__(self, conn: ConnectionInfo, *, connection_timeout: float = 10.0, retry_time: float = 30.0) -> None:
        """``retry_time``: seconds the driver keeps retrying transient failures (0 for a single attempt)."""
        self.conn = conn
        self._driver = AsyncGraphDatabase.driver(
            conn.uri,
            auth=(conn.username, conn.password),
            connection_timeout=connection_timeout,
            max_transaction_retry_time=retry_time,
            # A label or type that no data has yet (SAME_AS in a one-document library) is normal here, not a typo.
            notifications_disabled_classifications=[NotificationDisabledClassification.UNRECOGNIZED],
        )

    async def __aenter__(self) -> GraphClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self._driver.close()

    async def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run the named query as a read (routed to readers) and return its rows as dicts."""
        return await self.run(load_query(name), params, read=True)

    async def read_rows(self, name: str, **params: Any) -> list[Any]:
        """Run a named read query that returns its rows collected in one record (``RETURN collect(...) AS
        rows``) and return that list. The Python driver spends ~50 µs per record: 400 rows took 21 ms as
        records and 3 ms as one list, so the queries on a question's path return one record."""
        (row,) = await self.read(name, **params)
        return row["rows"]

    async def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run the named query as a write and return its rows as dicts."""
        return await self.run(load_query(name), params, read=False)

    async def run(self, query: str, params: dict[str, Any] | None = None, *, read: bool = False) -> list[dict[str, Any]]:
        """Run query text (from a named file; never built from user text) in a managed transaction."""
        result = await self._execute(query, params or {}, RoutingControl.READ if read else RoutingControl.WRITE)
        return [record.data() for record in result.records]

    async def _execute(self, query: str | Query, params: dict[str, Any], routing: RoutingControl) -> EagerResult:
        """``execute_query`` on the configured database; "Neo4j is not there" becomes ``Neo4jUnavailableError``."""
        try:
            return await self._driver.execute_query(query, parameters_=params, database_=self.conn.database,
                                                    routing_=routing)
        except (ServiceUnavailable, SessionExpired) as exc:
            raise Neo4jUnavailableError(f"Neo4j at {self.conn.uri} is not reachable: {exc}") from exc
        except AuthError as exc:
            raise Neo4jUnavailableError(
                f"Neo4j at {self.conn.uri} refused the credentials of user {self.conn.username!r}: {exc}"
            ) from exc

    async def run_user_query(self, query: str, params: dict[str, Any] | None = None, *,
                             timeout: float = USER_QUERY_TIMEOUT) -> list[dict[str, Any]]:
        """Run Cypher a user wrote (a BI tool, a notebook) only if it is read-only: the server plans it first
        (``EXPLAIN``, nothing runs) and anything whose query type is not ``r`` (read) is refused with
        :class:`~bookrag_neo4j.errors.QueryRefusedError`. It then runs with read routing, in a read session,
        with a transaction ``timeout`` in seconds. Other server errors become
        :class:`~bookrag_neo4j.errors.UserQueryError`."""
        params = params or {}
        plan = await self._user_query(Query(f"EXPLAIN {query}", timeout=timeout), params)
        kind = plan.summary.query_type
        if kind != "r":
            raise QueryRefusedError(f"only read-only Cypher may run here; the server plans this query as "
                                    f"{QUERY_TYPES.get(kind, kind)}")
        result = await self._user_query(Query(query, timeout=timeout), params)
        return [record.data() for record in result.records]

    async def _user_query(self, query: Query, params: dict[str, Any]) -> EagerResult:
        try:
            return await self._execute(query, params, RoutingControl.READ)
        except Neo4jError as exc:
            raise UserQueryError(f"{exc.code}: {exc.message}") from exc

    async def versions(self) -> ServerVersions:
        """Neo4j version and edition, and the GDS version (``None`` when the plugin is missing)."""
        (row,) = await self.read("server/versions")
        gds: str | None = None
        procedures = await self.read("server/gds_installed")
        if procedures and procedures[0]["installed"]:
            (gds_row,) = await self.read("server/gds_version")
            gds = gds_row["version"]
        return ServerVersions(neo4j_version=row["version"], edition=row["edition"], gds_version=gds)
