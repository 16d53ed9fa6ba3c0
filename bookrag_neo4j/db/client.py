"""Async access to Neo4j: one driver, named queries, managed transactions for writes, retried reads.

    conn = ConnectionInfo("bolt://localhost:7687", "neo4j", "secret", "neo4j")
    async with Neo4jClient(conn) as db:
        rows = await db.read("server/versions")                    # dicts
        versions = await db.read_as(Versions, "server/versions")   # typed rows: a dataclass or pydantic model
        await db.write("schema/some_write", key="abc")

Reads are routed to readers as auto-commit transactions (one round trip; a managed transaction's COMMIT was a third
of a named query's time, measured) and retried as the driver retries a managed one; every call names its database,
and driver errors that mean "Neo4j is not there" become :class:`~bookrag_neo4j.errors.Neo4jUnavailableError`.
Cypher a user wrote goes through ``run_user_query`` only: the read-only gate (``gate.py``), a timeout, a row cap.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from neo4j import (
    READ_ACCESS,
    AsyncGraphDatabase,
    AsyncTransaction,
    EagerResult,
    NotificationDisabledClassification,
    Query,
    RoutingControl,
)
from neo4j.exceptions import AuthError, ClientError, DriverError, Neo4jError, ServiceUnavailable, SessionExpired
from pydantic import BaseModel, ValidationError

from ..errors import Neo4jUnavailableError, SchemaError, UserQueryError
from .gate import check_plan, explain_refused
from .queries import load_query
from .reply_cap import FETCH_SIZE, read_within, without_vectors

log = logging.getLogger(__name__)

USER_QUERY_TIMEOUT = 30.0  # seconds a user's query may run (run_user_query)
USER_QUERY_MAX_ROWS = 10_000  # rows a user's query may return (run_user_query); more is an error, not a cut
# A write that matched a node which a concurrent transaction then deleted fails with this client error, which the
# driver does not retry. Indexing workers meet it where documents share nodes (a :Keyword one document's rebuild
# deletes while another links to it); every product write is an idempotent MERGE or DELETE on keys, so the
# write runs again, as the driver reruns a deadlocked one (tests/integration/test_workers.py).
DELETED_UNDER_US = "Neo.ClientError.Statement.EntityNotFound"
WRITE_RERUNS = 3
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Deleted:
    """The row of a delete query: how many nodes (or links) it deleted."""

    deleted: int


@dataclass(frozen=True, slots=True)
class KeyScore:
    """A row of the queries that score nodes (full-text, vector and similarity searches): a key and its score."""

    key: str
    score: float


def typed_rows(row: type[R], name: str, rows: Iterable[Mapping[str, Any]]) -> list[R]:
    """``rows`` of the named query as instances of ``row``: a pydantic model validates them (by its config); a
    dataclass takes the columns as they are (a few hundred nanoseconds a row), a column it lacks or one missing
    refused. A refused row is a :class:`~bookrag_neo4j.errors.SchemaError` naming the query."""
    try:
        if isinstance(row, type) and issubclass(row, BaseModel):
            return [row.model_validate(r) for r in rows]
        return [row(**r) for r in rows]
    except (TypeError, ValidationError) as exc:
        raise SchemaError(f"query {name!r} returned rows that are not {row.__name__}s: {exc}") from exc


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


class Neo4jClient:
    """Async Neo4j client that runs named queries from ``cypher/``; use it as an async context manager."""

    def __init__(self, conn: ConnectionInfo, *, connection_timeout: float = 4.0, retry_time: float = 30.0) -> None:
        """``retry_time``: seconds the driver keeps retrying transient failures (0 for a single attempt) once the
        server has answered; the first contact is one attempt (:meth:`_first_contact`), so a client of a server
        that is down fails within ``connection_timeout`` instead of retrying for ``retry_time``."""
        self.conn = conn
        self.retry_time = retry_time
        self._reached = False
        self._driver = AsyncGraphDatabase.driver(
            conn.uri,
            auth=(conn.username, conn.password),
            connection_timeout=connection_timeout,
            max_transaction_retry_time=retry_time,
            # A label or type that no data has yet (SAME_AS in a one-document library) is normal here, not a typo.
            notifications_disabled_classifications=[NotificationDisabledClassification.UNRECOGNIZED],
        )

    async def __aenter__(self) -> Neo4jClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self._driver.close()

    async def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run the named query as a read (routed to readers) and return its rows as dicts."""
        return await self.run(load_query(name), params, read=True)

    async def read_as(self, row: type[R], name: str, **params: Any) -> list[R]:
        """:meth:`read`'s rows as ``row``s: a dataclass or pydantic model whose fields are the query's columns."""
        return typed_rows(row, name, await self.read(name, **params))

    async def read_rows_as(self, row: type[R], name: str, **params: Any) -> list[R]:
        """:meth:`read_rows`'s rows as ``row``s (see :meth:`read_as`)."""
        return typed_rows(row, name, await self.read_rows(name, **params))

    async def read_rows(self, name: str, **params: Any) -> list[Any]:
        """Run a named read query that returns its rows collected in one record (``RETURN collect(...) AS
        rows``) and return that list. The Python driver spends ~50 µs per record: 400 rows took 21 ms as
        records and 3 ms as one list, so the queries on a question's path return one record. The list is
        taken as decoded, without ``Record.data()``'s walk over every nested value (which turns graph
        objects into dicts, ~20 ms a question at 50 documents): such queries return maps and scalars only."""
        return await self._rows(name, params, RoutingControl.READ)

    async def write_rows(self, name: str, **params: Any) -> list[Any]:
        """:meth:`read_rows` routed as a write: GDS calls on a catalog graph reach the member that holds it."""
        return await self._rows(name, params, RoutingControl.WRITE)

    async def _rows(self, name: str, params: dict[str, Any], routing: RoutingControl) -> list[Any]:
        result = await self._execute(load_query(name), params, routing)
        (record,) = result.records
        rows: list[Any] = record["rows"]
        return rows

    async def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run the named query as a write and return its rows as dicts."""
        return await self.run(load_query(name), params, read=False)

    async def write_as(self, row: type[R], name: str, **params: Any) -> list[R]:
        """:meth:`write`'s rows as ``row``s (see :meth:`read_as`)."""
        return typed_rows(row, name, await self.write(name, **params))

    async def run(self, query: str, params: dict[str, Any] | None = None, *, read: bool = False) -> list[dict[str, Any]]:
        """Run query text (from a named file; never built from user text) in a managed transaction: the driver
        retries transient errors (deadlocks, leader switches) with backoff for ``retry_time``; a write that met
        a node deleted under it runs again (``DELETED_UNDER_US``)."""
        reruns = 0
        while True:
            try:
                result = await self._execute(query, params or {}, RoutingControl.READ if read else RoutingControl.WRITE)
                return [record.data() for record in result.records]
            except ClientError as exc:
                if read or exc.code != DELETED_UNDER_US or reruns == WRITE_RERUNS:
                    raise
                log.info("a concurrent transaction deleted a node this write matched; running it again: %s", exc.message)
                await asyncio.sleep(0.1 * 2 ** reruns)
                reruns += 1

    async def _execute(self, query: str | Query, params: dict[str, Any], routing: RoutingControl) -> EagerResult:
        """A write in ``execute_query``'s managed transaction, a read in :meth:`_read`, on the configured database;
        "Neo4j is not there" becomes ``Neo4jUnavailableError``."""
        await self._first_contact()
        try:
            if routing is RoutingControl.READ:
                return await self._read(query, params)
            return await self._driver.execute_query(query, parameters_=params, database_=self.conn.database,
                                                    routing_=routing)
        except (ServiceUnavailable, SessionExpired, AuthError) as exc:
            raise self._unavailable(exc) from exc

    async def _read(self, query: str | Query, params: dict[str, Any]) -> EagerResult:
        """A read as an auto-commit transaction, with the bookmarks of this client's writes: an error the driver
        calls retryable (a transient one, a server gone or restarting, a leader switch) runs it again after a
        backoff (0.2 s, doubling up to 5 s) until ``retry_time`` has passed, as a managed transaction would."""
        deadline = asyncio.get_running_loop().time() + self.retry_time
        delay = 0.2
        while True:
            try:
                async with self._driver.session(database=self.conn.database, default_access_mode=READ_ACCESS,
                                                bookmark_manager=self._driver.execute_query_bookmark_manager) as s:
                    return await (await s.run(query, params)).to_eager_result()
            except (Neo4jError, DriverError) as exc:
                if not exc.is_retryable() or asyncio.get_running_loop().time() + delay > deadline:
                    raise
                log.info("a read failed (%s); again in %.1f s", exc, delay)
            await asyncio.sleep(delay)
            delay = min(2 * delay, 5.0)

    async def _first_contact(self) -> None:
        """Reach the server once, without the driver's retries: a server that is down (or a wrong address or
        password) fails the first call at once with a hint, not after ``retry_time`` of retrying. Later calls
        keep the retries, which carry a run over a server restart."""
        if self._reached:
            return
        try:
            await self._driver.verify_connectivity()
        except (ServiceUnavailable, SessionExpired, AuthError, OSError) as exc:
            raise self._unavailable(exc) from exc
        self._reached = True

    async def reach(self) -> None:
        """Reach the server now, once and without retries, as the first call does: a long-lived client (the MCP
        server) reaches it before each request, so that a request after the server went down fails within
        ``connection_timeout`` instead of after ``retry_time`` of the driver's retries (measured: 32 s)."""
        self._reached = False
        await self._first_contact()

    def _unavailable(self, exc: Exception) -> Neo4jUnavailableError:
        if isinstance(exc, AuthError):
            return Neo4jUnavailableError(
                f"Neo4j at {self.conn.uri} refused the credentials of user {self.conn.username!r}: {exc}")
        cause = " ".join(str(exc).split())
        return Neo4jUnavailableError(f"Neo4j at {self.conn.uri} is not reachable ({cause}): start it with "
                                     "`bookrag neo4j start`, or check NEO4J_URI")

    async def run_user_query(self, query: str, params: dict[str, Any] | None = None, *,
                             timeout: float = USER_QUERY_TIMEOUT,
                             max_rows: int | None = USER_QUERY_MAX_ROWS, max_bytes: int | None = None,
                             truncate: bool = False, vectors: bool = True) -> list[dict[str, Any]]:
        """Run Cypher a user wrote (a BI tool, a notebook, an LLM) only if the read-only gate passes it: the server
        plans it first (``EXPLAIN``, nothing runs) and :func:`~bookrag_neo4j.db.gate.check_plan` walks the
        plan; a query it refuses, or one the server will not plan, raises
        :class:`~bookrag_neo4j.errors.QueryRefusedError` naming the reason. A query that passes runs in a read
        transaction (read routing, read access mode) with a transaction ``timeout`` in seconds, and may return
        at most ``max_rows`` rows (``None``: no cap): it streams, and stops with
        :class:`~bookrag_neo4j.errors.UserQueryError` at row ``max_rows + 1``, or with ``truncate`` returns the
        first ``max_rows`` rows (ask for one more than you show to learn whether there were more). ``max_bytes``
        bounds the rows' JSON the same way (:func:`~bookrag_neo4j.db.reply_cap.read_within`: with ``truncate``
        the rows say how they were cut). ``vectors=False`` replaces every embedding in the rows with a short note
        (:func:`~bookrag_neo4j.db.reply_cap.without_vectors`). Other server errors become
        :class:`~bookrag_neo4j.errors.UserQueryError`."""
        params = params or {}
        try:
            plan = await self._execute(Query(f"EXPLAIN {query}", timeout=timeout), params, RoutingControl.READ)
        except Neo4jError as exc:
            raise explain_refused(exc.code, exc.message) from exc
        check_plan(plan.summary.plan, query_type=plan.summary.query_type, database=plan.summary.database,
                   allowed_database=self.conn.database)
        rows = await self._read_capped(query, params, timeout, max_rows, truncate, max_bytes, vectors)
        return rows if vectors or max_bytes is not None else [without_vectors(row) for row in rows]

    async def _read_capped(self, query: str, params: dict[str, Any], timeout: float,
                           max_rows: int | None, truncate: bool = False,
                           max_bytes: int | None = None, vectors: bool = True) -> list[dict[str, Any]]:
        """Run a checked user query in a read transaction, pulling at most ``max_rows + 1`` records (``truncate``:
        ``max_rows``, the rest discarded), and with ``max_bytes`` no more once their JSON passes it."""

        async def work(tx: AsyncTransaction) -> list[dict[str, Any]]:
            result = await tx.run(query, params)
            if max_bytes is not None:
                return await read_within(result, max_rows=max_rows, max_bytes=max_bytes, truncate=truncate,
                                         vectors=vectors)
            if max_rows is None:
                return [record.data() async for record in result]
            if truncate:  # the commit discards what was not fetched: nothing more streams
                return [record.data() for record in await result.fetch(max_rows)]
            records = await result.fetch(max_rows + 1)
            if len(records) > max_rows:  # raising rolls back: the driver discards the rest, nothing more streams
                raise UserQueryError(f"the query returned more than {max_rows} rows; add LIMIT (or pass a larger "
                                     f"max_rows)")
            return [record.data() for record in records]

        try:  # one attempt, no retries: a query over the memory limit fails at once instead of again and again
            # small pulls: none far past the budget
            fetch: dict[str, Any] = {} if max_bytes is None else {"fetch_size": FETCH_SIZE}
            async with self._driver.session(database=self.conn.database, default_access_mode=READ_ACCESS,
                                            **fetch) as session:
                async with await session.begin_transaction(timeout=timeout) as tx:
                    rows = await work(tx)
                    await tx.commit()
                    return rows
        except (ServiceUnavailable, SessionExpired, AuthError) as exc:
            raise self._unavailable(exc) from exc
        except Neo4jError as exc:
            if (exc.code or "").endswith(".OutOfMemoryError"):  # the heap, not the per-query limit: the server lives
                raise UserQueryError(f"the query needed more memory than the server has ({exc.code}: "
                                     f"{exc.message}); the server is still running") from exc
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
