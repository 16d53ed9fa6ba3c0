"""The web app (``bookrag serve``) against clients that hold connections: headers sent a byte at a time and
bodies that trickle in are cut off after ``serve_header_timeout`` / ``serve_body_timeout`` (token mode, before
the token is ever checked), while a normal request goes on being answered; and a client that goes away
mid-upload is one INFO line in the log, not an ERROR with tracebacks. Real sockets on loopback, bounded loops."""

from __future__ import annotations

import logging
import select
import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from bookrag_neo4j.web import create_app

from ..helpers.webapp import serving

HEADER_TIMEOUT, BODY_TIMEOUT = 2.0, 4.0
SLACK = 3.0  # seconds past a deadline the server may take to cut a client (a busy 2-core machine)
TOKEN = "s3cret"


@pytest.fixture
def guarded(settings, neo4j_server, offline_models, tmp_path: Path):
    """The app in token mode with short header and body deadlines; (base URL, (host, port)). Neo4j runs: an
    upload reaches it before its body is read."""
    app = create_app(settings.replace(serve_header_timeout=HEADER_TIMEOUT, serve_body_timeout=BODY_TIMEOUT),
                     models=offline_models, use_llm=False, upload_dir=tmp_path / "uploads", token=TOKEN)
    with serving(app) as base:
        yield base, (urlsplit(base).hostname, urlsplit(base).port)


def upload_head(address: tuple[str, int], length: int, token: str | None = TOKEN) -> bytes:
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    return (f"POST /upload HTTP/1.1\r\nHost: {address[0]}:{address[1]}\r\n{auth}"
            f"Content-Type: multipart/form-data; boundary=B\r\nContent-Length: {length}\r\n\r\n"
            "--B\r\nContent-Disposition: form-data; name=\"pdf\"; filename=\"slow.pdf\"\r\n"
            "Content-Type: application/pdf\r\n\r\n%PDF-1.7\n").encode()


class Dripper:
    """A client that sends ``first`` at once, then one byte of ``drip`` every tick; :attr:`closed_after` is the
    seconds until the server closed the connection (``None`` while open) and :attr:`reply` what it sent."""

    def __init__(self, address: tuple[str, int], first: bytes, drip: bytes) -> None:
        self.sock = socket.create_connection(address, timeout=5)
        self.sock.setblocking(False)
        self.began = time.monotonic()
        self.sock.sendall(first)
        self.drip, self.reply, self.closed_after = drip, b"", None

    def tick(self) -> None:
        if self.closed_after is not None:
            return
        try:
            self.sock.send(self.drip[:1])
            self.drip = self.drip[1:] or self.drip
        except OSError:
            self.closed_after = time.monotonic() - self.began

    def readable(self) -> None:
        try:
            data = self.sock.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        self.reply += data
        if not data and self.closed_after is None:
            self.closed_after = time.monotonic() - self.began


def drip_until_closed(clients: list[Dripper], seconds: float, tick: float = 0.5) -> None:
    """Send each open client's next byte every ``tick`` until all are closed or ``seconds`` have passed."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(c.closed_after is None for c in clients):
        for client in clients:
            client.tick()
        end = time.monotonic() + tick
        while (left := end - time.monotonic()) > 0:
            open_ = [c for c in clients if c.closed_after is None]
            ready, _, _ = select.select([c.sock for c in open_], [], [], left) if open_ else ([], [], [])
            if not open_:
                break
            for client in open_:
                if client.sock in ready:
                    client.readable()
    for client in clients:
        client.sock.close()


def test_header_drips_and_slow_bodies_are_cut_off(guarded) -> None:
    base, address = guarded
    header = f"GET /ask?question=why HTTP/1.1\r\nHost: {address[0]}:{address[1]}\r\nX-Padding: ".encode()
    drips = [Dripper(address, b"", header + b"a" * 10_000) for _ in range(200)]
    slow = [Dripper(address, upload_head(address, 1_000_000, token), b"0" * 1_000_000)
            for token in [TOKEN] * 10 + [None] * 10]  # with the token the app reads the body; without it, not
    drip_until_closed(drips + slow, seconds=BODY_TIMEOUT + 12)
    started = time.perf_counter()
    assert httpx.get(base + "/api/jobs", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
    healthy = [time.perf_counter() - started]
    still_open = sum(c.closed_after is None for c in drips + slow)
    assert still_open == 0, f"{still_open} slow clients still connected"
    assert max(c.closed_after for c in drips) < HEADER_TIMEOUT + SLACK, sorted(c.closed_after for c in drips)[-3:]
    assert max(c.closed_after for c in slow) < BODY_TIMEOUT + SLACK, sorted(c.closed_after for c in slow)
    assert all(c.reply.startswith(b"HTTP/1.1 408") for c in drips), {c.reply[:40] for c in drips}
    assert all(c.reply.startswith(b"HTTP/1.1 408") for c in slow[:10]), [c.reply[:40] for c in slow[:10]]
    assert all(c.reply.startswith(b"HTTP/1.1 401") for c in slow[10:]), [c.reply[:40] for c in slow[10:]]
    assert healthy[0] < 2.0
    print(f"200 header drips cut after {max(c.closed_after for c in drips):.1f} s at most, 20 slow bodies after "
          f"{max(c.closed_after for c in slow):.1f} s")


def test_a_steady_request_is_not_cut_off(guarded) -> None:
    """Headers and a body that arrive in time, over several reads, are answered as ever."""
    _, address = guarded
    with socket.create_connection(address, timeout=20) as sock:
        head = f"GET /api/jobs HTTP/1.1\r\nHost: {address[0]}:{address[1]}\r\nAuthorization: Bearer {TOKEN}\r\n"
        for part in (head[:20], head[20:], "\r\n"):
            sock.sendall(part.encode())
            time.sleep(HEADER_TIMEOUT / 4)
        assert sock.recv(65536).startswith(b"HTTP/1.1 200")
        time.sleep(HEADER_TIMEOUT * 0.6)  # kept alive: a second request on the connection within the deadline
        sock.sendall(f"{head}\r\n".encode())
        assert sock.recv(65536).startswith(b"HTTP/1.1 200")


def test_a_client_gone_mid_upload_is_one_info_line(guarded, caplog: pytest.LogCaptureFixture) -> None:
    _, address = guarded
    uvicorn_log = logging.getLogger("uvicorn")  # it does not propagate to the root logger
    caplog.set_level(logging.INFO)
    uvicorn_log.addHandler(caplog.handler)
    try:
        for _ in range(20):
            with socket.create_connection(address, timeout=10) as sock:
                sock.sendall(upload_head(address, 200_000) + b"0" * 10_000)
                time.sleep(0.05)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and len(gone := [r for r in caplog.records
                                                           if "went away" in r.getMessage()]) < 20:
            time.sleep(0.2)
    finally:
        uvicorn_log.removeHandler(caplog.handler)
    loud = [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]
    assert not loud, [f"{r.levelname} {r.name}: {r.getMessage()[:200]}" for r in loud[:3]]
    assert len(gone) == 20 and all(r.levelno == logging.INFO and "\n" not in r.getMessage() for r in gone), \
        [r.getMessage() for r in gone[:3]]
    assert len(caplog.text) < 20 * 400, len(caplog.text)
