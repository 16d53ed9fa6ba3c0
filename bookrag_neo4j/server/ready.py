"""Wait until a server answers Bolt and ``RETURN gds.version()``; probe a server's versions."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from ..db.client import ConnectionInfo, Neo4jClient, ServerVersions
from ..errors import BookRAGError, ServerStartError

log = logging.getLogger(__name__)


def probe(conn: ConnectionInfo, *, timeout: float = 5.0) -> ServerVersions:
    """Connect once and return the server's versions; raises ``Neo4jUnavailableError`` when it does not answer."""

    async def _probe() -> ServerVersions:
        async with Neo4jClient(conn, connection_timeout=timeout, retry_time=0) as db:
            return await db.versions()

    return asyncio.run(_probe())


def wait_until_ready(
    conn: ConnectionInfo,
    *,
    timeout: float,
    alive: Callable[[], bool] = lambda: True,
    log_tail: Callable[[], str] = lambda: "",
) -> ServerVersions:
    """Poll until Bolt answers and GDS is loaded; fail early if ``alive()`` turns false, else after ``timeout``."""
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        if not alive():
            raise ServerStartError(f"Neo4j exited during start-up. Last log lines:\n{log_tail()}")
        try:
            versions = probe(conn)
        except BookRAGError as exc:
            last_error = exc
        else:
            if versions.gds_version is not None:
                return versions
            last_error = ServerStartError("Neo4j answers but the Graph Data Science plugin is not loaded")
        time.sleep(1.0)
    raise ServerStartError(
        f"Neo4j did not answer at {conn.uri} with GDS within {timeout:.0f}s ({last_error}). "
        f"Last log lines:\n{log_tail()}"
    )
