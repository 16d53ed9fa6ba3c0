"""Who may use the web app: loopback only unless a token is set, then the token on every request; and no
form posted from another site.

    check_bind("0.0.0.0", token=None)     # ConfigurationError: listening beyond loopback needs a token
    app.add_middleware(TokenGuard, token="s3cret")

A browser brings the token once, as ``?token=...`` in the first URL (the app then keeps it in an HttpOnly,
SameSite=Strict cookie); API clients send ``Authorization: Bearer ...``.
"""

from __future__ import annotations

import ipaddress
import secrets
from urllib.parse import urlencode, urlsplit

from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response

from ..errors import ConfigurationError

COOKIE = "bookrag_token"
UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 or ``localhost``."""
    if host.strip("[]") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """Refuse to listen beyond loopback without a token (anyone on the network could read and delete)."""
    if not token and not is_loopback(host):
        raise ConfigurationError(f"refusing to listen on {host} without a token: pass --token (or set "
                                 "BOOKRAG_SERVE_TOKEN), or listen on 127.0.0.1")


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
            return PlainTextResponse("refused: this form was posted from another site", status_code=403)
        if self.token:
            presented = self._presented(request)
            if presented is None or not secrets.compare_digest(presented.encode(), self.token.encode()):
                return PlainTextResponse("this bookrag server needs its token: open it with ?token=... "
                                         "(or send Authorization: Bearer ...)", status_code=401)
            if request.query_params.get("token") and request.method == "GET":  # keep it, and out of the URL
                query = urlencode([(k, v) for k, v in request.query_params.multi_items() if k != "token"])
                response = RedirectResponse(request.url.path + (f"?{query}" if query else ""), status_code=303)
                response.set_cookie(COOKIE, presented, httponly=True, samesite="strict")
                return response
        return await call_next(request)


def _same_origin(request: Request) -> bool:
    """Browsers send Origin with a cross-site POST: it must name this host (no Origin: not a browser form)."""
    origin = request.headers.get("origin")
    if not origin or origin == "null":
        return origin is None
    return urlsplit(origin).netloc == request.headers.get("host", "")
