"""The gate in front of every request of the settings page.

Rules, checked in this order:

* the ``Host`` header must name this server (``127.0.0.1:PORT`` or ``localhost:PORT``), which
  defeats DNS rebinding;
* a request sent by another site (an ``Origin`` that is not ours, or ``Sec-Fetch-Site:
  cross-site``) is refused; no CORS header is ever sent, so browsers block cross-origin reads;
* every ``/api/`` call carries the per-launch token in the ``X-Tersh-Token`` header;
* a state-changing ``/api/`` call (anything but GET/HEAD) also needs a JSON content type, which a
  plain HTML form cannot send.

Every response gets a strict Content-Security-Policy and is never cached.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

TOKEN_HEADER = "x-tersh-token"
SAFE_METHODS = frozenset({"GET", "HEAD"})

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        b"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
    (b"cross-origin-resource-policy", b"same-origin"),
)


def new_token() -> str:
    """A fresh random token for one launch of the page."""
    return secrets.token_urlsafe(32)


def allowed_hosts(port: int) -> frozenset[str]:
    """The Host header values that name this server."""
    return frozenset({f"127.0.0.1:{port}", f"localhost:{port}"})


def allowed_origins(port: int) -> frozenset[str]:
    """The origins this server's own page runs under."""
    return frozenset(f"http://{host}" for host in allowed_hosts(port))


class Guard:
    """ASGI middleware enforcing the rules of this module around ``app``."""

    def __init__(self, app: ASGIApp, *, token: str, port: int) -> None:
        self.app = app
        self.token = token
        self.hosts = allowed_hosts(port)
        self.origins = allowed_origins(port)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                await self.app(scope, receive, send)
            return  # websockets and anything else: not served
        refusal = self.refusal(scope)
        if refusal is not None:
            status, message = refusal
            await _send_json(send, status, {"error": message})
            return
        await self.app(scope, receive, _with_headers(send))

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """``(status, reason)`` when the request must be refused, else None."""
        headers = _headers(scope)
        if headers.get("host", "") not in self.hosts:
            return 421, "unexpected Host header"
        origin = headers.get("origin")
        if origin is not None and origin not in self.origins:
            return 403, "cross-origin requests are refused"
        if headers.get("sec-fetch-site") == "cross-site":
            return 403, "cross-site requests are refused"
        if not str(scope.get("path", "")).startswith("/api/"):
            return None
        given = headers.get(TOKEN_HEADER, "")
        if not secrets.compare_digest(given.encode("utf-8", "replace"), self.token.encode()):
            return 401, "missing or wrong token (open the URL printed by `tersh ui`)"
        if scope.get("method", "GET") not in SAFE_METHODS:
            media_type = headers.get("content-type", "").split(";")[0].strip().lower()
            if media_type != "application/json":
                return 415, "state-changing requests must send application/json"
        return None


def _headers(scope: Scope) -> dict[str, str]:
    """Request headers by lower-case name; a repeated header keeps its first value."""
    found: dict[str, str] = {}
    for raw_name, raw_value in scope.get("headers", []):
        name = raw_name.decode("latin-1").lower()
        found.setdefault(name, raw_value.decode("latin-1"))
    return found


def _with_headers(send: Send) -> Send:
    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            names = {name.lower() for name, _ in message.get("headers", [])}
            extra = [(n, v) for n, v in SECURITY_HEADERS if n not in names]
            message["headers"] = [*message.get("headers", []), *extra]
        await send(message)

    return wrapped


async def _send_json(send: Send, status: int, body: dict[str, str]) -> None:
    data = json.dumps(body).encode("utf-8")
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(data)).encode()),
        *SECURITY_HEADERS,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})
