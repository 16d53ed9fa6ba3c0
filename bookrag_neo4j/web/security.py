"""Who may use the web app: loopback or a token, no form posted from another site, no question asked from another
site, only this server's own host names.

    check_bind("0.0.0.0", token=None)     # ConfigurationError: listening beyond loopback needs a token
    app.add_middleware(TokenGuard, token="s3cret")
    app.add_middleware(HostGuard, allowed=["books.example.org"])   # added last: it runs first
    cross_site(request)                   # True for GET /ask?question=... that a page of another site sent

The Host check stops DNS rebinding: a page whose name is made to resolve to 127.0.0.1 reaches the app as the same site,
but its requests name its own Host. Starlette's TrustedHostMiddleware matches names only; this one also takes all of
127.0.0.0/8 and the address the connection arrived on. A browser brings the token once, as ``?token=...`` in the first
URL (then kept in an HttpOnly, SameSite=Strict cookie); API clients send ``Authorization: Bearer ...``.

A question is asked by a GET (the ask form's URL can be kept and shared), so another site's page could make a
browser ask one (an image, a link, a form): with an LLM that spends money. Browsers say where such a request comes
from: ``Sec-Fetch-Site`` (``cross-site``, ``same-site`` for another port of the same host) and, on some, ``Origin``;
:func:`cross_site` reads both, and the ask page then shows the question without running it. A request without
either (a typed or bookmarked URL, a script) is asked as before.
"""

from __future__ import annotations

import ipaddress
import re
import secrets
from collections.abc import Iterable
from urllib.parse import urlencode, urlsplit

from starlette.datastructures import Headers
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from ..errors import ConfigurationError

COOKIE = "bookrag_token"
UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}
_HOST = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[^\[\]:/@?#\\\s]+)(?::\d{1,5})?")  # name or [IPv6], then a port


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 or ``localhost``."""
    if host.strip("[]") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _unspecified(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """Refuse to listen beyond loopback without a token (anyone on the network could read and delete)."""
    if not token and not is_loopback(host):
        raise ConfigurationError(f"refusing to listen on {host} without a token: pass --token (or set "
                                 "BOOKRAG_SERVE_TOKEN), or listen on 127.0.0.1")


def host_name(host: str) -> str | None:
    """The name in a Host header (``name``, ``name:port``, ``[::1]:port``), lower case, without brackets or a
    trailing dot; ``None`` when it is not one."""
    match = _HOST.fullmatch(host.strip())
    return match[1].strip("[]").lower().rstrip(".") if match else None


def refusal(path: str, text: str, status: int) -> Response:
    """A refused request: one line of text, or ``{"error": ...}`` for the JSON API under ``/api/``."""
    if path.startswith("/api/"):
        return JSONResponse({"error": text}, status_code=status)
    return PlainTextResponse(text, status_code=status)


class HostGuard:
    """Answers only requests whose Host names this server: loopback (``localhost``, 127.0.0.0/8, ``::1``), the
    address the connection arrived on, or one of ``allowed`` (names or addresses, a port ignored; a wildcard
    address such as 0.0.0.0 names no host); any other gets 400 before any handler runs."""

    def __init__(self, app: ASGIApp, allowed: Iterable[str] = ()) -> None:
        self.app = app
        self.allowed = {name for host in allowed if (name := host_name(host)) and not _unspecified(name)}

    def allows(self, host: str | None, local: str | None = None) -> bool:
        """Whether a request with this Host header, arriving on the ``local`` address, is for this server."""
        name = host_name(host or "")
        if local is not None:  # a dual-stack socket shows an IPv4 client's address as ::ffff:a.b.c.d
            local = local.lower().removeprefix("::ffff:")
        return name is not None and (is_loopback(name) or name in self.allowed or name == local)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            host = Headers(scope=scope).get("host")
            if not self.allows(host, (scope.get("server") or (None,))[0]):
                shown = host_name(host or "") or "(none)"
                response = refusal(scope.get("path", ""), f"refused: this bookrag server does not answer to the host "
                                   f"{shown}; allow it with bookrag serve --allowed-host or BOOKRAG_SERVE_ALLOWED_HOSTS",
                                   400)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class TokenGuard(BaseHTTPMiddleware):
    """Every request needs the token (when one is set); a state-changing request must come from this site."""

    def __init__(self, app, token: str | None) -> None:  # noqa: ANN001 - an ASGI app
        super().__init__(app)
        self.token = token

    def _presented(self, request: Request) -> str | None:
        auth = request.headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            return auth[7:].strip()
        return request.query_params.get("token") or request.cookies.get(COOKIE)

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        if request.method in UNSAFE and not _same_origin(request):
            return refusal(request.url.path, "refused: this form was posted from another site", 403)
        if self.token:
            presented = self._presented(request)
            if presented is None or not secrets.compare_digest(presented.encode(), self.token.encode()):
                return refusal(request.url.path, "this bookrag server needs its token: open it with ?token=... "
                                                 "(or send Authorization: Bearer ...)", 401)
            if request.query_params.get("token") and request.method == "GET":  # keep it, and out of the URL
                query = urlencode([(k, v) for k, v in request.query_params.multi_items() if k != "token"])
                response = RedirectResponse(request.url.path + (f"?{query}" if query else ""), status_code=303)
                response.set_cookie(COOKIE, presented, httponly=True, samesite="strict")
                return response
        return await call_next(request)


def cross_site(request: Request) -> bool:
    """Whether the browser says another site sent this request: ``Sec-Fetch-Site`` other than ``same-origin`` or
    ``none`` (typed, bookmarked), or an ``Origin`` that is not this server's (``null`` included)."""
    fetched_from = request.headers.get("sec-fetch-site", "").strip().lower()
    if fetched_from not in ("", "same-origin", "none"):
        return True
    return "origin" in request.headers and not _same_origin(request)


def _same_origin(request: Request) -> bool:
    """Browsers send Origin with a cross-site POST: it must name this host (no Origin: not a browser form)."""
    origin = request.headers.get("origin")
    if not origin or origin == "null":
        return origin is None
    return urlsplit(origin).netloc == request.headers.get("host", "")
