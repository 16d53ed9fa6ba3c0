"""How ``bookrag serve`` runs the web app on uvicorn: its HTTP/1.1 protocol (h11) with the two deadlines uvicorn
lacks. A client has ``serve.header_timeout`` seconds to send a request's headers (from connecting, or from the
previous answer on a kept-alive connection) and ``serve.body_timeout`` seconds to send its body once the headers
are in; past either it gets 408 (when nothing was answered yet) and is disconnected, and the app sees a client
that went away.

    config = server_config(create_app(settings), host="127.0.0.1", port=8000)   # the app's settings.serve
    uvicorn.Server(config).run()

Why: uvicorn's keep-alive timeout runs only between requests and its h11 protocol has no read timeout, so a client
sending a header byte a second, or a body that trickles in, kept its connection as long as it liked (in token mode
too: the token is checked once the headers are in). The deadlines sit in the protocol, below the app: a dripping
client never reaches it. A connection left idle past the header deadline is closed without a 408 (a browser's
spare connection, not a slow request).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..setting_groups import ServeSettings

log = logging.getLogger(__name__)
_TIMED_OUT = "the request's {} did not arrive within {:g} s\n"


class DeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on the headers and one on the body of each request (class
    attributes; :func:`deadline_protocol` makes a subclass with the values of one server)."""

    header_timeout: float = ServeSettings().header_timeout
    body_timeout: float = ServeSettings().body_timeout

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._timer: asyncio.TimerHandle | None = None
        self._phase: str | None = None
        self._heard = False  # bytes arrived since the deadline was armed (an idle connection is closed quietly)
        super().connection_made(transport)
        self._watch()

    def data_received(self, data: bytes) -> None:
        self._heard = True
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel()
        super().connection_lost(exc)

    def _watch(self) -> None:
        """Arm the deadline of what the client is sending now: a request's headers, its body, or nothing (the
        request is in: the answer is the app's to give)."""
        if self.transport.is_closing():
            self._cancel()
            return
        state = self.conn.their_state
        phase = "headers" if state is h11.IDLE else "body" if state is h11.SEND_BODY else None
        if phase == self._phase:
            return  # the same deadline runs on: a byte at a time does not push it back
        self._cancel()
        self._phase, self._heard = phase, False
        if phase is not None:
            seconds = self.header_timeout if phase == "headers" else self.body_timeout
            self._timer = self.loop.call_later(seconds, self._expired, phase, seconds)

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._phase = None, None

    def _expired(self, phase: str, seconds: float) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        client = f"{self.client[0]}:{self.client[1]}" if self.client else "a client"
        if phase == "headers" and not self._heard:
            log.debug("closing an idle connection from %s after %g s", client, seconds)
        else:
            setting = "BOOKRAG_SERVE_HEADER_TIMEOUT" if phase == "headers" else "BOOKRAG_SERVE_BODY_TIMEOUT"
            log.info("disconnected %s: its request's %s took more than %g s (%s)", client, phase, seconds, setting)
            if phase == "headers" or self.cycle is None or not self.cycle.response_started:
                self.transport.write(_timed_out(phase, seconds))
        self.transport.close()  # the app, if it was reading the body, sees the client go away


def _timed_out(phase: str, seconds: float) -> bytes:
    body = _TIMED_OUT.format(phase, seconds).encode()
    return (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
            b"content-length: %d\r\n\r\n%s" % (len(body), body))


def deadline_protocol(header_timeout: float, body_timeout: float) -> type[DeadlineProtocol]:
    """A :class:`DeadlineProtocol` with these deadlines, in seconds."""
    return type("DeadlineProtocol", (DeadlineProtocol,), {"header_timeout": header_timeout,
                                                          "body_timeout": body_timeout})


def server_config(app: Any, *, host: str, port: int, log_level: str = "warning", **options: Any) -> uvicorn.Config:
    """uvicorn's configuration for the web app: the deadlines of its ``settings.serve`` (``app.state.serve``, set
    by :func:`~bookrag_neo4j.web.create_app`; the defaults for another app)."""
    serve = getattr(getattr(app, "state", None), "serve", None) or ServeSettings()
    return uvicorn.Config(app, host=host, port=port, log_level=log_level,
                          http=deadline_protocol(serve.header_timeout, serve.body_timeout), **options)
