"""Indexing leases in Neo4j: a document is indexed by one worker at a time, on one machine or many.

    leases = LeaseManager(db, ttl=120.0)
    claim = await leases.claim(file_key(pdf), name=pdf.name)   # claimed: new, ours, or expired (claim.takeover)
    report = await leases.hold(claim, indexer.index(pdf))      # renewed every ttl/3; then leases.release(claim)

A lease is an ``(:IndexLease {key, owner, expires})`` node, claimed in one transaction (``cypher/index/claim_lease``)
that locks it before reading owner and expiry, so one concurrent claimer wins; expiry is the server's clock. An expired
lease is taken over (indexing resumes what is not complete), at once if its holder's process is gone from this machine.
A holder that finds its lease lost stops (:class:`~bookrag_neo4j.errors.LeaseLostError`) rather than write on.
:func:`under_lease` (:func:`layers_key`) keeps a document's derived layers to one builder too.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from neo4j.time import DateTime

from ..db.client import Neo4jClient
from ..errors import LeaseLostError

log = logging.getLogger(__name__)

T = TypeVar("T")
CLAIM_ATTEMPTS = 3  # claims in a row a concurrent release may delete the lease under


def _machine() -> str:
    """This machine as lease owners name it: the host name and the process-id namespace (containers may share a
    host name; a process id means something only within its namespace)."""
    try:
        namespace = os.stat("/proc/self/ns/pid").st_ino
    except OSError:  # not Linux: one namespace
        namespace = 0
    return f"{socket.gethostname()}/{namespace}"


def worker_id() -> str:
    """This worker's name in leases: machine, process id and a random part (a pid is reused)."""
    return f"{_machine()}:{os.getpid()}:{secrets.token_hex(3)}"


def owner_is_gone(owner: str) -> bool:
    """Whether lease ``owner`` was a process on this machine that no longer runs. ``False`` whenever that is not
    certain: another machine, a pid that is alive again (reused), an owner name of another form."""
    machine, _, rest = owner.rpartition(":")[0].rpartition(":")
    pid = rest if rest.isdigit() else ""
    if os.name == "nt" or machine != _machine() or not pid or int(pid) == os.getpid():
        return False  # (on Windows os.kill would terminate the process: expiry only)
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, another user's
        pass
    return False


def heartbeat_interval(ttl: float) -> float:
    """Seconds between renewals: a third of the time to live, so two renewals can be late before it expires."""
    return ttl / 3


@dataclass(frozen=True, slots=True)
class ClaimRow:
    """What ``index/claim_lease`` answers: whether the lease is ``claimed`` now, its ``owner`` and ``expires`` (None
    when the claim found it deleted), the ``previous`` owner and expiry, whether it was a ``takeover`` and whether the
    previous owner's process was ``gone``."""

    claimed: bool
    takeover: bool
    gone: bool
    previous: str | None
    previous_expires: DateTime | None
    owner: str | None
    expires: DateTime | None


@dataclass(frozen=True)
class Claim:
    """The answer to a claim: ``claimed`` (the lease is ours now), the ``owner`` and ``expires`` after it, the
    ``previous`` owner, and whether it was a ``takeover`` of another worker's expired lease."""

    key: str
    claimed: bool
    owner: str
    expires: datetime
    previous: str | None = None
    takeover: bool = False


class LeaseManager:
    """Claims, renews and releases indexing leases for one worker (``owner``) with time to live ``ttl`` seconds."""

    def __init__(self, db: Neo4jClient, *, ttl: float, owner: str | None = None) -> None:
        self.db = db
        self.ttl = ttl
        self.owner = owner or worker_id()
        self.takeovers = 0

    @property
    def _ttl_ms(self) -> int:
        return max(1, round(self.ttl * 1000))

    async def claim(self, key: str, *, name: str = "") -> Claim:
        """Claim document ``key``'s lease (``name``: the file, for whoever looks at the lease). A claim that queued
        behind a release finds the lease deleted once it holds the lock (no expiry comes back): it claims anew."""
        for _ in range(CLAIM_ATTEMPTS):
            row = await self._claim(key, name, gone=None)
            # still that owner's: ours now, else as it is
            if not row.claimed and row.owner is not None and owner_is_gone(row.owner):
                row = await self._claim(key, name, gone=row.owner)
            if row.expires is not None:
                break
        else:
            raise LeaseLostError(f"{name or key}: the lease was deleted under {CLAIM_ATTEMPTS} claims in a row")
        claim = Claim(key=key, claimed=row.claimed, owner=row.owner or "", expires=row.expires.to_native(),
                      previous=row.previous, takeover=row.takeover)
        if claim.takeover:
            self.takeovers += 1
            expired = row.previous_expires.to_native() if row.previous_expires is not None else None
            log.warning("%s: took over the lease of %s, %s", name or key, claim.previous,
                        f"which expired at {expired}" if not row.gone else "whose process is gone")
        return claim

    async def _claim(self, key: str, name: str, *, gone: str | None) -> ClaimRow:
        (row,) = await self.db.write_as(ClaimRow, "index/claim_lease", key=key, owner=self.owner, doc_name=name,
                                        ttl_ms=self._ttl_ms, gone=gone)
        return row

    async def renew(self, claim: Claim) -> bool:
        """Extend the lease if this worker still holds it; ``False`` when it is gone or another worker's."""
        return bool(await self.db.write("index/renew_lease", key=claim.key, owner=self.owner, ttl_ms=self._ttl_ms))

    async def release(self, claim: Claim) -> bool:
        """Delete the lease if this worker holds it (``False``: it was not ours any more)."""
        (row,) = await self.db.write("index/release_lease", key=claim.key, owner=self.owner)
        return bool(row["released"] > 0)

    async def hold(self, claim: Claim, work: Awaitable[T]) -> T:
        """Run ``work`` while renewing the lease every third of its time to live, from a thread of its own with its
        own connection: a stage that holds the event loop (CPU-bound work) cannot starve the renewals. When a
        renewal finds the lease lost, ``work`` is cancelled (it stops writing) and
        :class:`~bookrag_neo4j.errors.LeaseLostError` raised; when renewing fails otherwise (Neo4j gone), that
        error. The lease is not released here."""
        loop = asyncio.get_running_loop()
        lost: asyncio.Future[None] = loop.create_future()
        stop = threading.Event()

        def report(exc: BaseException) -> None:
            if not lost.done():
                lost.set_exception(exc)

        beat = threading.Thread(target=self._heartbeat, args=(claim, stop, lambda exc: loop.call_soon_threadsafe(
            report, exc)), name=f"lease-{claim.key[:12]}", daemon=True)
        task = asyncio.ensure_future(work)
        beat.start()
        try:
            waiting: set[asyncio.Future[Any]] = {task, lost}
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
            if not task.done():  # the heartbeat reports only a failed renewal
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
                lost.result()
            return task.result()
        finally:
            stop.set()
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await asyncio.to_thread(beat.join)

    def _heartbeat(self, claim: Claim, stop: threading.Event, report: Callable[[BaseException], None]) -> None:
        """The renewals, on this thread's own event loop and Neo4j connection, until ``stop``."""
        interval = heartbeat_interval(self.ttl)
        with asyncio.Runner() as runner:
            db = Neo4jClient(self.db.conn)
            renewer = LeaseManager(db, ttl=self.ttl, owner=self.owner)
            try:
                while not stop.wait(interval):
                    if not runner.run(renewer.renew(claim)):
                        raise LeaseLostError(f"{claim.key}: lost the indexing lease (another worker took it over, "
                                             "or it expired before a renewal): stopped indexing it")
            except Exception as exc:
                if not stop.is_set():  # after the work ended, a failed renewal is nobody's concern
                    report(exc)
            finally:
                runner.run(db.close())


POLL_SECONDS = 0.5  # how often a worker waiting for a lease another one holds tries again


def layers_key(doc_key: str) -> str:
    """The lease key of a document's derived layers (layout layer and content graph)."""
    return f"{doc_key}:layers"


async def under_lease(leases: LeaseManager, key: str, work: Callable[[], Awaitable[T]], *, name: str = "",
                      done: Callable[[], Awaitable[bool]] | None = None) -> T | None:
    """Run ``work`` holding ``key``'s lease, first waiting while another worker holds it (until it is released
    or expires). ``done``, asked once the lease is ours and after each wait, ends it without running ``work``
    (None) when another worker has built what ``work`` would."""
    while True:
        claim = await leases.claim(key, name=name)
        if claim.claimed:
            try:
                return None if done is not None and await done() else await leases.hold(claim, work())
            finally:
                try:
                    await leases.release(claim)
                except Exception as exc:  # Neo4j gone: the lease expires by itself; the work's own error stands
                    log.warning("could not release the lease of %s: %s", name or key, exc)
        await asyncio.sleep(POLL_SECONDS)
        if done is not None and await done():
            return None
